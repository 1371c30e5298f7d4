import { bool, doc, int, oneOf, port, type ConfigOf, type VarSpec } from '@atelier/config';
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

/** Environment variables of pet-directory-sim (docs/configuration.md is generated from this spec). */
export const petDirectorySimConfigSpec = {
  GRPC_PORT: doc(port(50056), 'gRPC listen port (mutual TLS; callers: jobs only), all interfaces'),
  GRPC_HEALTH_PORT: doc(port(50156), 'plaintext `grpc.health.v1` only, for Kubernetes probes (they speak no TLS); 0: a free port (tests)'),
  GRPC_REFLECTION: doc(bool(false), 'serve gRPC server reflection (off: it lists every method to any caller with a certificate)'),
  ...grpcSecurityConfigSpec,
  METRICS_PORT: doc(port(9464), 'Prometheus `GET /metrics` over HTTP; 0: a free port (tests)'),
  LOG_LEVEL: doc(oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'), 'the least severe level logged'),
  SHUTDOWN_GRACE_MS: doc(int({ default: 10_000, min: 0, max: 600_000 }), 'how long in-flight calls may run after SIGTERM'),
  PET_DIRECTORY_SEED: doc(
    petSeed(),
    'the pets it knows, a JSON array `[{ "id": "<uuid>", "ownerUserId": "<sub>", "sharedWith": ["<sub>", …] }]` (at most 10 000; a bad one stops it with exit 78 naming the entry and the field)',
    "the development users' pets (`domain/dev-pets.ts`)",
  ),
} as const;

export type PetDirectorySimConfig = ConfigOf<typeof petDirectorySimConfigSpec>;

/**
 * On SIGTERM in-flight calls may finish within SHUTDOWN_GRACE_MS; the process forces its exit 5 s
 * later at the latest (the chart's grace period is derived from both).
 */
export const shutdownPolicy = GRACEFUL_SHUTDOWN;
