import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { GRACEFUL_SHUTDOWN, forcedExitMs } from './index.js';

const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), 'run-service.fixture.ts');

describe('lifecycle - runService', () => {
  it('starts the service, and on SIGTERM stops it, then flushes telemetry and exits 0', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', fixture], {
      env: { ...process.env, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (chunk.toString().includes('fixture: serving')) child.kill('SIGTERM');
    });
    // 'close', not 'exit': the last lines of its stdout may still be on their way when it exits.
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(code, output).toBe(0);
    const steps = output.split('\n').filter((line) => line.startsWith('fixture: '));
    expect(steps).toEqual(['fixture: started', 'fixture: serving', 'fixture: stopped', 'fixture: telemetry flushed']);
    // The forced exit of its policy: FIXTURE_GRACE_MS + 500.
    expect(output).toMatch(/"graceMs":1500/);
  });

  it('exits 1 with one fatal line naming the service and the reason when the start fails', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', fixture], {
      env: { ...process.env, FIXTURE_START: 'fail' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status).toBe(1);
    const fatal = run.stdout.split('\n').find((line) => line.includes('"level":"fatal"'));
    expect(fatal, run.stdout + run.stderr).toContain('fixture cannot start: the port is taken');
  });

  it('exits 78 naming the variable when the configuration is bad, before anything starts', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', fixture], {
      env: { ...process.env, FIXTURE_GRACE_MS: 'soon' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(run.status).toBe(78);
    expect(run.stderr).toContain('FIXTURE_GRACE_MS');
    expect(run.stdout).not.toContain('started');
  });
});

describe('lifecycle - shutdown policy', () => {
  it('forces the exit of a service 5 s after SHUTDOWN_GRACE_MS', () => {
    expect(forcedExitMs(GRACEFUL_SHUTDOWN, { SHUTDOWN_GRACE_MS: 10_000 })).toBe(15_000);
  });
});
