import { bool, int, oneOf, port, type ConfigOf, type VarSpec } from '@atelier/config';
import { grpcSecurityConfigSpec } from '@atelier/grpc';
import { GRACEFUL_SHUTDOWN } from '@atelier/lifecycle';
import { DEV_PETS } from './domain/dev-pets.js';
import { parsePetSeed, type SeedPet } from './domain/pet-seed.js';

/** The pets served: a JSON seed (domain/pet-seed.ts), or npm start's development pets when unset. */
function petSeed(): VarSpec<readonly SeedPet[]> {
  return {
    describe: 'a JSON array of { "id", "ownerUserId", "sharedWith" } objects',
    parse: (raw) => (raw === undefined || raw.trim() === '' ? DEV_PETS : parsePetSeed(raw)),
  };
}

/** Environment variables of pet-directory-sim (README, "Pets"). */
export const petDirectorySimConfigSpec = {
  GRPC_PORT: port(50056),
  /** Plaintext grpc.health.v1 only, for Kubernetes probes (they speak no TLS); 0 = a free port (tests). */
  GRPC_HEALTH_PORT: port(50156),
  /** Serve gRPC server reflection (off: it lists every method to any caller with a certificate). */
  GRPC_REFLECTION: bool(false),
  /** Mutual TLS: this service's certificate and key, the platform CA, the identities' trust domain. */
  ...grpcSecurityConfigSpec,
  /** Prometheus scrapes http://<pod>:METRICS_PORT/metrics; 0 asks the OS for a free port (tests). */
  METRICS_PORT: port(9464),
  LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
  /** How long in-flight calls may take to finish on SIGTERM. */
  SHUTDOWN_GRACE_MS: int({ default: 10_000, min: 0, max: 600_000 }),
  /** Who owns which pet and whom it is shared with; unset: domain/dev-pets.ts, the development users' pets. */
  PET_DIRECTORY_SEED: petSeed(),
} as const;

export type PetDirectorySimConfig = ConfigOf<typeof petDirectorySimConfigSpec>;

/**
 * On SIGTERM in-flight calls may finish within SHUTDOWN_GRACE_MS; the process forces its exit 5 s
 * later at the latest (the chart's grace period is derived from both).
 */
export const shutdownPolicy = GRACEFUL_SHUTDOWN;
