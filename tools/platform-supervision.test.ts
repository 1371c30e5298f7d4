// `npm start`'s supervision (scripts/supervisor.ts, stop-signals.ts, platform-status.ts) over real
// child processes: a crash is reported and restarted, a service that keeps crashing is given up
// on, the status port tells, and a stop — or SIGINT to the supervising process — ends every child.
import { spawn } from 'node:child_process';
import { type AddressInfo } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot } from '../scripts/node-runtime.mjs';
import { platformReadiness, startStatusServer } from '../scripts/platform-status.js';
import { Supervisor, type SupervisorOptions } from '../scripts/supervisor.js';
import { isAlive, nodeService } from './test-support/node-service.js';

const supervisors: Supervisor[] = [];
afterEach(() => supervisors.splice(0).forEach((supervisor) => supervisor.kill()));

function supervisor(options: Partial<SupervisorOptions> = {}) {
  const lines: string[] = [];
  const created = new Supervisor({
    backoff: { baseMs: 50, maxMs: 200 },
    stableAfterMs: 60_000,
    maxRapidFailures: 3,
    readyTimeoutMs: 10_000,
    readyPollMs: 20,
    stopTimeoutMs: 500,
    log: (line) => lines.push(line),
    ...options,
  });
  supervisors.push(created);
  return { supervisor: created, lines };
}

async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

const stateOf = (s: Supervisor, name: string) => s.status().find((service) => service.name === name)!;

describe('platform supervisor - restarts', () => {
  it('a service killed with SIGKILL after start-up is reported and restarted; the others run on', async () => {
    const { supervisor: s, lines } = supervisor();
    await s.start(nodeService('gateway', 'serve'));
    await s.start(nodeService('worker', 'serve'));
    const { pid: workerPid } = stateOf(s, 'worker');
    const { pid: gatewayPid } = stateOf(s, 'gateway');

    process.kill(workerPid!, 'SIGKILL');
    await until(() => stateOf(s, 'worker').state === 'up' && stateOf(s, 'worker').pid !== workerPid, 'the restarted worker');

    expect(lines.find((line) => line.startsWith('worker exited'))).toMatch(
      /^worker exited \(signal SIGKILL\) after .* s: restarting it in .* s \(failure 1 of at most 3 in a row\)$/,
    );
    expect(lines).toContainEqual(expect.stringMatching(/^worker is up again \(pid \d+, restart 1\)$/));
    expect(stateOf(s, 'worker')).toMatchObject({ restarts: 1, lastExit: 'signal SIGKILL' });
    expect(stateOf(s, 'gateway')).toMatchObject({ state: 'up', pid: gatewayPid, restarts: 0 });
  });

  it('a service that keeps exiting soon after start is given up on after N failures in a row; the rest keep running', async () => {
    const { supervisor: s, lines } = supervisor({ maxRapidFailures: 2 });
    await s.start(nodeService('catalog', 'serve'));
    await s.start(nodeService('worker', 'exit-after-ready'));

    await until(() => stateOf(s, 'worker').state === 'failed', 'the worker given up on');

    expect(lines.filter((line) => line.includes('restarting it in'))).toHaveLength(2);
    expect(lines.at(-1)).toMatch(
      /^worker exited \(exit code 3\) after .*: 3 exits in a row, each within 60 s of starting — giving up on it, the rest keep running/,
    );
    expect(stateOf(s, 'worker')).toMatchObject({ restarts: 2, lastExit: 'exit code 3' });
    expect(stateOf(s, 'worker').pid).toBeUndefined();
    expect(isAlive(stateOf(s, 'catalog').pid!)).toBe(true);
  });

  it('the backoff starts afresh after a process stayed up past stableAfterMs', async () => {
    const { supervisor: s, lines } = supervisor({ maxRapidFailures: 1, stableAfterMs: 300 });
    await s.start(nodeService('media', 'exit-after-400ms'));

    await until(() => stateOf(s, 'media').restarts >= 3, 'three restarts', 15_000);

    expect(stateOf(s, 'media').state).not.toBe('failed');
    expect(lines.filter((line) => line.includes('(failure 1 of at most 1 in a row)')).length).toBeGreaterThanOrEqual(3);
  });

  it('a service that exits before it is ready fails its start, and is not restarted', async () => {
    const { supervisor: s } = supervisor();
    await expect(s.start(nodeService('jobs', 'exit-before-ready'))).rejects.toThrow('jobs exited during start-up (exit code 3)');
    await sleep(200);
    expect(stateOf(s, 'jobs')).toMatchObject({ state: 'failed', restarts: 0 });
  });
});

describe('platform supervisor - stop', () => {
  it('ends every process last started first, skips one already gone and kills one that ignores SIGTERM after the bound', async () => {
    const { supervisor: s, lines } = supervisor({ backoff: { baseMs: 60_000, maxMs: 60_000 }, stopTimeoutMs: 500 });
    await s.start(nodeService('catalog', 'serve'));
    await s.start(nodeService('worker', 'ignore-sigterm'));
    await s.start(nodeService('gateway', 'serve'));
    const pids = s.status().map((service) => service.pid!);
    process.kill(pids[2]!, 'SIGKILL');
    await until(() => stateOf(s, 'gateway').state === 'restarting', 'the gateway waiting for its restart');

    const began = Date.now();
    await s.stop();

    expect(Date.now() - began).toBeLessThan(3_000);
    expect(pids.map(isAlive)).toEqual([false, false, false]);
    expect(lines.at(-1)).toBe('worker did not stop within 0.5 s of SIGTERM: killed (SIGKILL)');
    expect(s.status().map((service) => [service.name, service.state, service.lastExit])).toEqual([
      ['catalog', 'stopped', 'signal SIGTERM'],
      ['worker', 'stopped', 'signal SIGKILL'],
      ['gateway', 'stopped', 'signal SIGKILL'],
    ]);
    await sleep(200);
    expect(s.status().every((service) => service.pid === undefined)).toBe(true);
  });
});

describe('platform supervisor - signals to the supervising process', () => {
  function startFixture(stopTimeoutMs: number) {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(repoRoot, 'tools', 'platform-supervision.fixture.ts'), String(stopTimeoutMs)],
      {
        cwd: repoRoot,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    return { child, exited, output: () => output };
  }

  async function pidsOf(fixture: ReturnType<typeof startFixture>): Promise<number[]> {
    await until(() => /^pids (\[.*\])$/m.test(fixture.output()), 'the fixture up', 20_000);
    return JSON.parse(/^pids (\[.*\])$/m.exec(fixture.output())![1]!) as number[];
  }

  it('SIGINT stops every child — one already gone, one ignoring SIGTERM — and exits 0; the same Ctrl-C relayed twice does not force', async () => {
    const fixture = startFixture(500);
    const pids = await pidsOf(fixture);
    process.kill(pids[2]!, 'SIGKILL');
    await until(() => fixture.output().includes('last exited (signal SIGKILL)'), 'the crash reported');

    // One Ctrl-C as npm start delivers it: from the terminal and relayed by npm and by the launcher (scripts/launch.mjs).
    fixture.child.kill('SIGINT');
    fixture.child.kill('SIGINT');
    fixture.child.kill('SIGINT');

    expect(await fixture.exited).toBe(0);
    expect(fixture.output()).toContain('SIGINT: stopping everything, last started first');
    expect(fixture.output()).toContain('stubborn did not stop within 0.5 s of SIGTERM: killed (SIGKILL)');
    expect(pids.map(isAlive)).toEqual([false, false, false]);
  }, 30_000);

  it('a second SIGINT a moment later kills what is left at once and exits 1', async () => {
    const fixture = startFixture(60_000);
    const pids = await pidsOf(fixture);

    fixture.child.kill('SIGINT');
    await sleep(1_200);
    expect(isAlive(pids[1]!)).toBe(true); // the stubborn one, within its 60 s bound
    const began = Date.now();
    fixture.child.kill('SIGINT');

    expect(await fixture.exited).toBe(1);
    expect(Date.now() - began).toBeLessThan(2_000);
    expect(fixture.output()).toContain('SIGINT again: killing what is left (SIGKILL)');
    await sleep(100);
    expect(pids.map(isAlive)).toEqual([false, false, false]);
  }, 30_000);
});

describe('platform supervisor - a launcher killed with SIGKILL', () => {
  it('the platform it started (own process group, IPC channel) notices, stops every child in order and exits', async () => {
    // The launcher as npm start runs it: scripts/launch.mjs, here over the supervision fixture.
    const launcherSource = [
      `import { launchPlatform } from ${JSON.stringify(path.join(repoRoot, 'scripts', 'launch.mjs'))};`,
      `const platform = launchPlatform(process.execPath, ['--import', 'tsx', ${JSON.stringify(path.join(repoRoot, 'tools', 'platform-supervision.fixture.ts'))}, '500'], ${JSON.stringify(repoRoot)});`,
      "console.log('platform ' + platform.pid);",
    ].join('\n');
    const launcher = spawn(process.execPath, ['--input-type=module', '-e', launcherSource], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    launcher.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    let platformPid: number | undefined;
    let pids: number[] = [];
    try {
      await until(() => /^pids (\[.*\])$/m.test(output) && /^platform (\d+)$/m.test(output), 'the platform up', 20_000);
      platformPid = Number(/^platform (\d+)$/m.exec(output)![1]);
      pids = JSON.parse(/^pids (\[.*\])$/m.exec(output)![1]!) as number[];

      launcher.kill('SIGKILL');

      // The stubborn child holds out its 0.5 s bound; the rest go at once.
      await until(() => ![platformPid!, ...pids].some(isAlive), 'the platform and every child gone', 10_000);
      expect(output).toContain('the launcher is gone (its IPC channel closed): stopping everything, last started first');
      expect(output).toContain('stubborn did not stop within 0.5 s of SIGTERM: killed (SIGKILL)');
    } finally {
      for (const pid of [platformPid, ...pids]) if (pid !== undefined && isAlive(pid)) process.kill(pid, 'SIGKILL');
    }
  }, 30_000);
});

describe('platform status - /readyz', () => {
  it('answers 503 naming the services not up while one restarts, 200 once every one is up', async () => {
    const { supervisor: s } = supervisor({ backoff: { baseMs: 300, maxMs: 300, jitter: 0 } });
    let phase: 'starting' | 'running' = 'starting';
    const server = await startStatusServer(0, () => platformReadiness(phase, s.status()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/readyz`;
    try {
      await s.start(nodeService('catalog', 'serve'));
      const starting = await fetch(url);
      expect([starting.status, ((await starting.json()) as { status: string }).status]).toEqual([503, 'starting']);
      await s.start(nodeService('worker', 'serve'));
      phase = 'running';
      const up = await fetch(url);
      expect(up.status).toBe(200);
      expect(await up.json()).toMatchObject({
        status: 'up',
        notUp: [],
        services: [
          { name: 'catalog', state: 'up' },
          { name: 'worker', state: 'up' },
        ],
      });

      process.kill(stateOf(s, 'worker').pid!, 'SIGKILL');
      await until(() => stateOf(s, 'worker').state === 'restarting', 'the worker restarting');
      const down = await fetch(url);
      expect(down.status).toBe(503);
      expect(await down.json()).toMatchObject({
        status: 'degraded',
        notUp: ['worker'],
        services: [
          { name: 'catalog', state: 'up' },
          { name: 'worker', state: 'restarting', lastExit: 'signal SIGKILL', restarts: 0 },
        ],
      });

      await until(() => stateOf(s, 'worker').state === 'up', 'the worker back');
      expect((await fetch(url)).status).toBe(200);
      expect((await fetch(url.replace('/readyz', '/other'))).status).toBe(404);
    } finally {
      server.close();
    }
  });

  it('a taken status port is refused with what to do', async () => {
    const first = await startStatusServer(0, () => platformReadiness('running', []));
    try {
      await expect(startStatusServer((first.address() as AddressInfo).port, () => platformReadiness('running', []))).rejects.toThrow(
        /is taken \(another npm start\?\): stop it, or set PLATFORM_STATUS_PORT/,
      );
    } finally {
      first.close();
    }
  });
});
