import { loadConfigOrExit, type ConfigCheck, type ConfigOf, type ConfigSpec, type VarSpec } from '@atelier/config';
import { createLogger, type Logger } from '@atelier/logging';
import { forcedExitMs, type ShutdownPolicy } from './shutdown-policy.js';
import { installShutdownHandlers } from './shutdown.js';

/** A service once it serves: `stop` is its drain (stop intake, finish in-flight work, close). */
export interface RunningService {
  stop(): Promise<void>;
}

/** The variables of a spec that parse to a number: the ones that can bound a drain. */
type NumericVariable<S extends ConfigSpec> = { [K in keyof S]: S[K] extends VarSpec<number> ? K : never }[keyof S] & string;

export interface ServiceBoot<S extends ConfigSpec & { LOG_LEVEL: VarSpec<string> }> {
  /** The service's name: on every log line, in configuration errors. */
  name: string;
  /**
   * Started by main.ts before anything else was imported (it patches gRPC, http and pg as they
   * load); flushed once the service has stopped.
   */
  telemetry: { shutdown(): Promise<void> };
  spec: S;
  checks?: readonly ConfigCheck<S>[];
  /** When the process forces its exit after SIGTERM (its config.ts `shutdownPolicy`). */
  shutdown: ShutdownPolicy<NumericVariable<S>>;
  /** Checks, wires and starts the service from its validated configuration. */
  start(config: ConfigOf<S>, logger: Logger): Promise<RunningService>;
}

/**
 * The process around every service, after telemetry: its configuration from the environment
 * (a bad one exits 78 naming each variable), its logger, then `start`; a failed start is one
 * fatal log line and exit 1. From then on the first SIGTERM or SIGINT drains (installShutdownHandlers).
 */
export async function runService<S extends ConfigSpec & { LOG_LEVEL: VarSpec<string> }>(service: ServiceBoot<S>): Promise<void> {
  const config = loadConfigOrExit(service.name, service.spec, process.env, service.checks);
  const logger = createLogger({ service: service.name, level: config.LOG_LEVEL as string });
  let running: RunningService;
  try {
    running = await service.start(config, logger);
  } catch (error) {
    logger.fatal({ err: error }, `${service.name} cannot start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  installShutdownHandlers(
    async () => {
      await running.stop();
      await service.telemetry.shutdown();
    },
    { logger, graceMs: forcedExitMs(service.shutdown, config as Readonly<Record<NumericVariable<S>, number>>) },
  );
}
