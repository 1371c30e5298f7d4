import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@atelier/config';
import { freePort } from '@atelier/testing';
import { checkNatsCredentials, connectNats, natsConfigSpec } from './index.js';

// A NATS server of this test's own that requires a user and password (the shared one is open).
let server: ChildProcess;
let url: string;

beforeAll(async () => {
  const port = await freePort();
  url = `nats://127.0.0.1:${port}`;
  server = spawn('nats-server', ['-a', '127.0.0.1', '-p', String(port), '--user', 'atelier', '--pass', 'test-only-password'], {
    stdio: 'ignore',
  });
  const deadline = Date.now() + 10_000;
  for (;;) {
    const probe = await connectNats({
      servers: url,
      name: 'probe',
      credentials: { NATS_USER: 'atelier', NATS_PASSWORD: 'test-only-password' },
    }).catch(() => undefined);
    if (probe) {
      await probe.close();
      return;
    }
    if (Date.now() > deadline) throw new Error('nats-server (from the machine, /usr/sbin/nats-server) did not start');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
});

afterAll(() => {
  server?.kill();
});

describe('nats - credentials', () => {
  it('logs in with NATS_USER and NATS_PASSWORD, and is refused without them', async () => {
    const config = loadConfig(natsConfigSpec, { NATS_URL: url, NATS_USER: 'atelier', NATS_PASSWORD: 'test-only-password' }, [
      checkNatsCredentials,
    ]);
    const nc = await connectNats({ servers: config.NATS_URL, name: 'credentials-test', credentials: config });
    expect(nc.isClosed()).toBe(false);
    await nc.close();
    await expect(connectNats({ servers: url, name: 'anonymous' })).rejects.toThrow(/auth/i);
  });

  it('refuses half a login or two kinds at once, naming the variable and never the secret', () => {
    expect(() => loadConfig(natsConfigSpec, { NATS_USER: 'atelier' }, [checkNatsCredentials])).toThrow(/NATS_PASSWORD is required/);
    expect(() => loadConfig(natsConfigSpec, { NATS_PASSWORD: 'hunter2' }, [checkNatsCredentials])).toThrow(/NATS_USER is required/);
    const both = () =>
      loadConfig(natsConfigSpec, { NATS_USER: 'a', NATS_PASSWORD: 'hunter2', NATS_TOKEN: 't0ken' }, [checkNatsCredentials]);
    expect(both).toThrow(/NATS_TOKEN excludes NATS_USER/);
    expect(both).not.toThrow(/hunter2|t0ken/);
  });
});
