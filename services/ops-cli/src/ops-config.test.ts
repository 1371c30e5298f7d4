import { describe, expect, it } from 'vitest';
import { loadConfig } from '@atelier/config';
import { runCli } from './cli.js';
import { ExitCode } from './exit-codes.js';
import { OPERATOR_ID_PATTERN, defaultOperatorId, opsConfigSpec } from './ops-config.js';
import { captureIo } from './test-support/ops-test-env.js';

describe('ops config - environment', () => {
  it('has defaults for a local platform', () => {
    expect(loadConfig(opsConfigSpec, {})).toEqual({
      ATELIER_NAMESPACE: 'atelier',
      ATELIER_SELECTOR: 'app.kubernetes.io/part-of=atelier',
      JOBS_ADDR: '127.0.0.1:50053',
      CATALOG_ADDR: '127.0.0.1:50051',
      NATS_URL: 'nats://127.0.0.1:4222',
      NATS_STREAM_PREFIX: 'ATELIER',
      ATELIER_OPERATOR_ID: undefined,
      ATELIER_OPS_TIMEOUT_MS: 5000,
      ATELIER_OPS_DEBUG: false,
      GRPC_TRUST_DOMAIN: 'atelier.local',
    });
  });

  it('refuses a bad environment before any call, one line per variable, exit 78', async () => {
    const io = captureIo({
      ATELIER_NAMESPACE: 'Not_A_Namespace',
      JOBS_ADDR: 'jobs-without-port',
      NATS_STREAM_PREFIX: 'lower',
      ATELIER_OPERATOR_ID: 'two words',
      ATELIER_OPS_TIMEOUT_MS: '5',
    });
    expect(await runCli(['dead-letters', 'list'], io)).toBe(ExitCode.CONFIG);
    expect(io.out()).toBe('');
    expect(io.err().split('\n')).toEqual([
      'atelier-ops: invalid configuration:',
      '  ATELIER_NAMESPACE must match /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/',
      '  JOBS_ADDR must be host:port, got "jobs-without-port"',
      '  NATS_STREAM_PREFIX must match /^[A-Z][A-Z0-9_]{0,31}$/',
      '  ATELIER_OPERATOR_ID must match /^[A-Za-z0-9][A-Za-z0-9._:@|-]{0,127}$/',
      '  ATELIER_OPS_TIMEOUT_MS must be between 100 and 120000, got 5',
      '',
    ]);
  });

  it('needs no configuration to print help', async () => {
    const io = captureIo({ JOBS_ADDR: 'broken' });
    expect(await runCli(['status', '--help'], io)).toBe(ExitCode.OK);
    expect(io.out()).toMatch(/^Usage: atelier-ops status/);
  });

  it('names the replaying operator after the login, within the rule jobs applies', () => {
    const id = defaultOperatorId({});
    expect(id).toMatch(/^ops-cli:/);
    expect(id).toMatch(OPERATOR_ID_PATTERN);
  });
});
