import { describe, expect, it } from 'vitest';
import { loadConfig } from '@atelier/config';
import { checkLeaseOutlastsAttempt, webhooksConfigSpec } from './config.js';

const tls = { GRPC_TLS_CA_FILE: '/tls/ca.crt', GRPC_TLS_CERT_FILE: '/tls/tls.crt', GRPC_TLS_KEY_FILE: '/tls/tls.key' };

describe('webhooks config - the variables', () => {
  it('defaults to the documented schedule, no allowlist, and a lease that outlasts an attempt', () => {
    const config = loadConfig(webhooksConfigSpec, tls, [checkLeaseOutlastsAttempt]);
    expect(config.WEBHOOK_RETRY_SCHEDULE_MS).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000]);
    expect([...config.WEBHOOK_ALLOWED_HOSTS]).toEqual([]);
    expect(config.GRPC_PORT).toBe(50055);
  });

  it('refuses a lease shorter than an attempt may take, and a malformed schedule', () => {
    expect(() => loadConfig(webhooksConfigSpec, { ...tls, WEBHOOK_LEASE_MS: '5000' }, [checkLeaseOutlastsAttempt])).toThrow(
      /WEBHOOK_LEASE_MS/,
    );
    expect(() => loadConfig(webhooksConfigSpec, { ...tls, WEBHOOK_RETRY_SCHEDULE_MS: '5s' })).toThrow(/WEBHOOK_RETRY_SCHEDULE_MS/);
  });
});
