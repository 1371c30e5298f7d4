import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '@atelier/config';
import { petDirectorySimConfigSpec } from './config.js';
import { DEV_PETS } from './domain/dev-pets.js';

const PET_A = '0a7e0000-0000-4000-8000-00000000000a';
const PET_B = '0a7e0000-0000-4000-8000-00000000000b';
const TLS = { GRPC_TLS_CA_FILE: 'ca.crt', GRPC_TLS_CERT_FILE: 'sim.crt', GRPC_TLS_KEY_FILE: 'sim.key' };

describe('pet-directory-sim config - environment', () => {
  it('has the documented defaults: its ports, and the development pets', () => {
    expect(loadConfig(petDirectorySimConfigSpec, TLS)).toMatchObject({
      GRPC_PORT: 50056,
      GRPC_HEALTH_PORT: 50156,
      METRICS_PORT: 9464,
      GRPC_REFLECTION: false,
      SHUTDOWN_GRACE_MS: 10_000,
      PET_DIRECTORY_SEED: DEV_PETS,
    });
  });

  it('reads PET_DIRECTORY_SEED as JSON, ids in lower case, each sharing once', () => {
    const seed = [
      { id: PET_A.toUpperCase(), ownerUserId: 'ana', sharedWith: ['ben', 'ben'] },
      { id: PET_B, ownerUserId: 'ben' },
    ];
    expect(loadConfig(petDirectorySimConfigSpec, { ...TLS, PET_DIRECTORY_SEED: JSON.stringify(seed) }).PET_DIRECTORY_SEED).toEqual([
      { id: PET_A, ownerUserId: 'ana', sharedWith: ['ben'] },
      { id: PET_B, ownerUserId: 'ben', sharedWith: [] },
    ]);
  });

  it('names the variable of a bad seed and never quotes a user id of it', () => {
    let error: unknown;
    try {
      loadConfig(petDirectorySimConfigSpec, {
        ...TLS,
        PET_DIRECTORY_SEED: `[{"id": "${PET_A}", "ownerUserId": "secret user@example.com"}]`,
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      { variable: 'PET_DIRECTORY_SEED', problem: 'entry 0: ownerUserId must be a user id (1–128 letters, digits, . _ : @ | -)' },
    ]);
    expect((error as ConfigError).message).not.toContain('secret');
  });
});
