import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '@atelier/config';
import { checkRetention, jobsConfigSpec } from './config.js';

const env = {
  GRPC_TLS_CA_FILE: 'ca.pem',
  GRPC_TLS_CERT_FILE: 'jobs.pem',
  GRPC_TLS_KEY_FILE: 'jobs.key',
  PRODUCT_EVENTS_USER_KEY: 'a-key-of-the-test-only-thirty-two-chars',
};
const load = (extra: Record<string, string>) => loadConfig(jobsConfigSpec, { ...env, ...extra }, [checkRetention]);

describe('jobs config - retention', () => {
  it('keeps published dispatches a day and the events of ended jobs 90 days by default', () => {
    const config = load({});
    expect(config.OUTBOX_RETENTION_MS).toBe(86_400_000);
    expect(config.JOB_EVENTS_RETENTION_DAYS).toBe(90);
    expect(config.RETENTION_BATCH_SIZE).toBe(1_000);
  });

  it('refuses an outbox retention the stale-dispatch sweep would outlive, naming the variable', () => {
    const refusal = (() => {
      try {
        load({ OUTBOX_RETENTION_MS: '600000', DISPATCH_STALE_AFTER_MS: '600000' });
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(ConfigError);
    expect((refusal as ConfigError).problems).toEqual([
      { variable: 'OUTBOX_RETENTION_MS', problem: expect.stringContaining('longer than DISPATCH_STALE_AFTER_MS (600000)') },
    ]);
    expect(load({ OUTBOX_RETENTION_MS: '600001', DISPATCH_STALE_AFTER_MS: '600000' }).OUTBOX_RETENTION_MS).toBe(600_001);
  });

  it('refuses batches too small to hold a job or too large for a short transaction', () => {
    expect(() => load({ RETENTION_BATCH_SIZE: '10' })).toThrow(/RETENTION_BATCH_SIZE must be between 100 and 10000/);
    expect(() => load({ RETENTION_BATCH_SIZE: '50000' })).toThrow(/RETENTION_BATCH_SIZE/);
  });
});
