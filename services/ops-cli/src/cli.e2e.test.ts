import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExitCode } from './exit-codes.js';
import { startFakeKubeApi, type FakeDeployment, type FakeKubeApi } from './test-support/fake-kube-api.js';
import { startOpsTestEnv, waitFor, type OpsTestEnv } from './test-support/ops-test-env.js';

/** The shim `npx atelier-ops` runs: the whole CLI as an operator starts it, in a process of its own. */
const BIN = fileURLToPath(new URL('../bin/atelier-ops.mjs', import.meta.url));

const ready = (component: string, replicas: number): FakeDeployment => ({
  namespace: 'atelier',
  name: `atelier-${component}`,
  labels: { 'app.kubernetes.io/part-of': 'atelier', 'app.kubernetes.io/component': component },
  replicas,
  readyReplicas: replicas,
  availableReplicas: replicas,
  updatedReplicas: replicas,
});

let env: OpsTestEnv;
let kube: FakeKubeApi;
let kubeconfig: string;

beforeAll(async () => {
  [env, kube] = await Promise.all([startOpsTestEnv(), startFakeKubeApi({ deployments: [ready('jobs', 1), ready('worker', 2)] })]);
  kubeconfig = kube.writeKubeconfig();
  await env.declareWorkerConsumers();
}, 60_000);

afterAll(async () => {
  await kube?.close();
  await env?.stop();
});

/** Runs `atelier-ops <args>` from a directory outside the repository, as an operator's shell would. */
function atelierOps(
  args: string[],
  extraEnv: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: tmpdir(),
      env: { PATH: process.env.PATH, HOME: process.env.HOME, KUBECONFIG: kubeconfig, ...env.cliEnv(), ...extraEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('atelier-ops - the real executable', () => {
  it('reports a ready release with real consumer lag and queue depth, exit 0', async () => {
    await env.createCanaries(2);
    await waitFor('the dispatches to be published', async () => (await env.admin.getQueueStats({})).outboxPending === 0);
    const { code, stdout, stderr } = await atelierOps(['status', '--json']);
    expect(stderr).toBe('');
    expect(code).toBe(ExitCode.OK);
    const report = JSON.parse(stdout);
    expect(report.verdict).toBe('ready');
    expect(report.consumers.items[0]).toMatchObject({ consumer: 'worker-interactive', pending: 2, ackPending: 0 });
    expect(report.jobs.queues[0]).toMatchObject({ queue: 'interactive', ready: 2 });
  });

  it('scales the workers and prints what changed, exit 0', async () => {
    const { code, stdout } = await atelierOps(['scale-workers', '4']);
    expect(code).toBe(ExitCode.OK);
    expect(stdout).toContain('atelier-worker in namespace atelier (context fake): replicas from 2 to 4');
    expect(kube.deployments.find((d) => d.name === 'atelier-worker')?.replicas).toBe(4);
  });

  it('lists dead letters, exit 0', async () => {
    expect(await atelierOps(['dead-letters', 'list'])).toEqual({ code: ExitCode.OK, stdout: 'No dead outbox events.\n', stderr: '' });
  });

  it('prints usage on stderr and exits 64 for an unknown command or option', async () => {
    const unknown = await atelierOps(['frobnicate']);
    expect(unknown.code).toBe(ExitCode.USAGE);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toMatch(/^atelier-ops: unknown command "frobnicate"\n\nUsage: atelier-ops <command> \[options\]/);
    const option = await atelierOps(['dead-letters', 'list', '--all']);
    expect(option.code).toBe(ExitCode.USAGE);
    expect(option.stderr).toMatch(/^atelier-ops: unknown option --all\n\nUsage: atelier-ops dead-letters list/);
  });

  it('exits 78 on a bad environment and 69 when jobs is out of reach, with one line and no stack trace', async () => {
    const badConfig = await atelierOps(['dead-letters', 'list'], { JOBS_ADDR: 'nowhere' });
    expect(badConfig).toEqual({
      code: ExitCode.CONFIG,
      stdout: '',
      stderr: 'atelier-ops: invalid configuration:\n  JOBS_ADDR must be host:port, got "nowhere"\n',
    });
    const down = await atelierOps(['dead-letters', 'replay', '7'], { JOBS_ADDR: '127.0.0.1:1' });
    expect(down.code).toBe(ExitCode.UNAVAILABLE);
    expect(down.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(down.stderr).toMatch(/^atelier-ops: 7 not replayed: JOBS_UNREACHABLE: cannot reach the jobs admin API at 127\.0\.0\.1:1/);
  });

  it('prints its help on stdout, exit 0, wherever it is run from', async () => {
    const { code, stdout } = await atelierOps(['--help']);
    expect(code).toBe(ExitCode.OK);
    expect(stdout).toMatch(/^Usage: atelier-ops <command> \[options\]/);
  });
});
