import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '@atelier/config';
import { checkQuotaLimits, checkRetention, jobsConfigSpec } from './config.js';

const env = {
  GRPC_TLS_CA_FILE: 'ca.pem',
  GRPC_TLS_CERT_FILE: 'jobs.pem',
  GRPC_TLS_KEY_FILE: 'jobs.key',
  PRODUCT_EVENTS_USER_KEY: 'a-key-of-the-test-only-thirty-two-chars',
};
const load = (extra: Record<string, string>) => loadConfig(jobsConfigSpec, { ...env, ...extra }, [checkRetention, checkQuotaLimits]);

describe('jobs config - retention', () => {
  it('keeps published dispatches a day and the events of ended jobs 90 days by default', () => {
    const config = load({});
    expect(config.OUTBOX_RETENTION_MS).toBe(86_400_000);
    expect(config.JOB_EVENTS_RETENTION_DAYS).toBe(90);
    expect(config.RETENTION_BATCH_SIZE).toBe(1_000);
    expect(config.RETENTION_REDACTION_BATCH_SIZE).toBe(200);
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

describe('jobs config - quota limits', () => {
  it('allows 20 generations a day and 300 a month by default', () => {
    const config = load({});
    expect(config.QUOTA_DAILY_LIMIT).toBe(20);
    expect(config.QUOTA_MONTHLY_LIMIT).toBe(300);
  });

  it('refuses a monthly limit below the daily one, naming the variable; equal is allowed', () => {
    const refusal = (() => {
      try {
        load({ QUOTA_DAILY_LIMIT: '50', QUOTA_MONTHLY_LIMIT: '49' });
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(ConfigError);
    expect((refusal as ConfigError).problems).toEqual([
      { variable: 'QUOTA_MONTHLY_LIMIT', problem: expect.stringContaining('at least QUOTA_DAILY_LIMIT (50)') },
    ]);
    expect(load({ QUOTA_DAILY_LIMIT: '50', QUOTA_MONTHLY_LIMIT: '50' }).QUOTA_MONTHLY_LIMIT).toBe(50);
    // The default month (300) under a raised day is refused too: raising one means looking at the other.
    expect(() => load({ QUOTA_DAILY_LIMIT: '1000' })).toThrow(/QUOTA_MONTHLY_LIMIT/);
  });
});

describe('jobs config - the pet service', () => {
  it("asks npm start's pet-directory-sim by default, within a second, reusing a yes for 30 s", () => {
    expect(load({})).toMatchObject({
      PET_DIRECTORY_ADDR: '127.0.0.1:50056',
      PET_DIRECTORY_IDENTITY: 'pet-directory-sim',
      PET_DIRECTORY_DEADLINE_MS: 1_000,
      PET_DIRECTORY_CACHE_TTL_MS: 30_000,
      PET_DIRECTORY_CACHE_MAX_ENTRIES: 10_000,
    });
  });

  it('takes the real pet service’s address and identity, and refuses what could not name one', () => {
    expect(load({ PET_DIRECTORY_ADDR: 'pets.app.svc:443', PET_DIRECTORY_IDENTITY: 'pets' })).toMatchObject({
      PET_DIRECTORY_ADDR: 'pets.app.svc:443',
      PET_DIRECTORY_IDENTITY: 'pets',
    });
    expect(() => load({ PET_DIRECTORY_ADDR: 'pets.app.svc' })).toThrow(/PET_DIRECTORY_ADDR must be host:port/);
    expect(() => load({ PET_DIRECTORY_IDENTITY: 'spiffe://x/svc/pets' })).toThrow(/PET_DIRECTORY_IDENTITY must match/);
    expect(() => load({ PET_DIRECTORY_DEADLINE_MS: '60000' })).toThrow(/PET_DIRECTORY_DEADLINE_MS must be between 50 and 30000/);
  });
});
