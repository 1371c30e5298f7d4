import { loadGrpcSecurity, servingOptionsOf, type CallObserver, type GrpcServerHandle } from '@atelier/grpc';
import { runService } from '@atelier/lifecycle';
import type { Logger } from '@atelier/logging';
import { startServiceMetrics } from '@atelier/metrics';
import type { Telemetry } from '@atelier/telemetry';
import { petDirectorySimConfigSpec, shutdownPolicy, type PetDirectorySimConfig } from './config.js';
import { SeededPets } from './domain/pet-seed.js';
import { startPetDirectoryServer } from './server.js';

export type PetDirectorySimAppConfig = Omit<PetDirectorySimConfig, 'LOG_LEVEL' | 'SHUTDOWN_GRACE_MS' | 'METRICS_PORT'>;

export interface PetDirectorySimApp {
  readonly server: GrpcServerHandle;
  /** How many pets it serves (never which: a seed names users). */
  readonly petCount: number;
  /** Stops serving (graceful for graceMs). */
  stop(graceMs: number): Promise<void>;
}

/** Wires the simulator: the seeded pets in memory and the gRPC server. No database, no peers. */
export async function startPetDirectorySimApp(
  config: PetDirectorySimAppConfig,
  logger: Logger,
  options: { host?: string; callObserver?: CallObserver } = {},
): Promise<PetDirectorySimApp> {
  const security = loadGrpcSecurity(config);
  const pets = new SeededPets(config.PET_DIRECTORY_SEED);
  const server = await startPetDirectoryServer(pets, {
    ...servingOptionsOf(config, security),
    host: options.host,
    logger,
    callObserver: options.callObserver,
  });
  return {
    server,
    petCount: pets.size,
    stop: (graceMs) => server.shutdown(graceMs),
  };
}

/** The pet-directory-sim process (main.ts hands over once telemetry runs): metrics, the app. */
export function runPetDirectorySim(telemetry: Telemetry): Promise<void> {
  return runService({
    name: 'pet-directory-sim',
    telemetry,
    spec: petDirectorySimConfigSpec,
    shutdown: shutdownPolicy,
    async start(config, logger) {
      const metrics = await startServiceMetrics('pet-directory-sim', { port: config.METRICS_PORT });
      const app = await startPetDirectorySimApp(config, logger, { callObserver: metrics.grpcCalls });
      logger.info({ port: app.server.port, metricsPort: metrics.port, pets: app.petCount }, 'pet-directory-sim serving gRPC');
      return {
        async stop() {
          await app.stop(config.SHUTDOWN_GRACE_MS);
          await metrics.close();
        },
      };
    },
  });
}
