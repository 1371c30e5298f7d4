import type { ConfigSpec, VarSpec } from '@atelier/config';
import { assertSchemaCurrent, type ServiceSchema } from '@atelier/db';
import type { Logger } from '@atelier/logging';
import { startServiceMetrics, type ServedServiceMetrics } from '@atelier/metrics';
import { runService, type ServiceBoot } from './run-service.js';

/** A gRPC service once it serves: its bound port, and its stop (a Closers' close, say). */
export interface GrpcServiceApp {
  readonly server: { readonly port: number };
  /** Stops serving (in-flight calls may finish within graceMs) and closes what the service opened. */
  stop(graceMs: number): Promise<void>;
}

/** The variables every gRPC service has that runGrpcService reads. */
type GrpcServiceSpec = ConfigSpec & {
  LOG_LEVEL: VarSpec<string>;
  SHUTDOWN_GRACE_MS: VarSpec<number>;
  METRICS_PORT: VarSpec<number>;
  DATABASE_URL: VarSpec<string>;
};

export interface GrpcServiceBoot<S extends GrpcServiceSpec> extends Omit<ServiceBoot<S>, 'start'> {
  /** The schema the service owns: it refuses to start on a database whose migrations are behind. */
  schema: ServiceSchema;
  /** Wires and starts the service from its validated configuration, with its served metrics. */
  start(config: ServiceConfigOf<S>, logger: Logger, metrics: ServedServiceMetrics): Promise<GrpcServiceApp>;
  /** What else its "serving gRPC" line says (peer addresses, a bucket …). */
  describe?: (config: ServiceConfigOf<S>) => object;
}

type ServiceConfigOf<S extends GrpcServiceSpec> = Parameters<ServiceBoot<S>['start']>[0];

/**
 * The process of a gRPC service that owns a schema (runService around it): the schema check,
 * /metrics on METRICS_PORT, the service, one "<name> serving gRPC" line; on SIGTERM the service
 * stops within SHUTDOWN_GRACE_MS, then its metrics.
 */
export function runGrpcService<S extends GrpcServiceSpec>(service: GrpcServiceBoot<S>): Promise<void> {
  const { schema, start, describe, ...boot } = service;
  return runService<S>({
    ...boot,
    async start(config, logger) {
      await assertSchemaCurrent(config.DATABASE_URL as string, schema);
      const metrics = await startServiceMetrics(service.name, { port: config.METRICS_PORT as number });
      const app = await start(config, logger, metrics).catch(async (error: unknown) => {
        await metrics.close();
        throw error;
      });
      logger.info({ port: app.server.port, metricsPort: metrics.port, ...describe?.(config) }, `${service.name} serving gRPC`);
      return {
        async stop() {
          await app.stop(config.SHUTDOWN_GRACE_MS as number);
          await metrics.close();
        },
      };
    },
  });
}
