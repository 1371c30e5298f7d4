import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { jetstream, type JsMsg } from '@atelier/nats';
import { runCli } from './cli.js';
import { ExitCode } from './exit-codes.js';
import { FAKE_KUBE_TOKEN, startFakeKubeApi, type FakeDeployment, type FakeKubeApi } from './test-support/fake-kube-api.js';
import { captureIo, startOpsTestEnv, waitFor, type OpsTestEnv } from './test-support/ops-test-env.js';

const release = { 'app.kubernetes.io/part-of': 'atelier', 'app.kubernetes.io/instance': 'atelier' };
const deployment = (component: string, replicas: number, ready = replicas): FakeDeployment => ({
  namespace: 'atelier',
  name: `atelier-${component}`,
  labels: { ...release, 'app.kubernetes.io/component': component },
  replicas,
  readyReplicas: ready,
  availableReplicas: ready,
  updatedReplicas: replicas,
});

let env: OpsTestEnv;
let kube: FakeKubeApi;
let held: JsMsg | null = null;

beforeAll(async () => {
  [env, kube] = await Promise.all([
    startOpsTestEnv(),
    startFakeKubeApi({
      deployments: [
        deployment('catalog', 2),
        deployment('jobs', 2),
        deployment('worker', 2),
        // Another team's Deployment in the namespace: the selector must leave it out.
        { namespace: 'atelier', name: 'unrelated', labels: { app: 'other' }, replicas: 1, readyReplicas: 0 },
      ],
    }),
  ]);
  // client-node reads KUBECONFIG from the process environment, as it does in production.
  vi.stubEnv('KUBECONFIG', kube.writeKubeconfig());
}, 60_000);

afterAll(async () => {
  vi.unstubAllEnvs();
  held?.nak();
  await kube?.close();
  await env?.stop();
});

async function status(args: string[], extraEnv: Record<string, string> = {}) {
  const io = captureIo(env.cliEnv(extraEnv));
  const exitCode = await runCli(['status', ...args], io);
  return { exitCode, out: io.out(), err: io.err() };
}

describe('status - against jobs, NATS and a Kubernetes API', () => {
  it('reports missing worker consumers as not ready (exit 1) before any worker has started', async () => {
    const { exitCode, out } = await status(['--json']);
    const report = JSON.parse(out);
    expect(exitCode).toBe(ExitCode.FAILURE);
    expect(report.verdict).toBe('not-ready');
    expect(report.consumers.items).toEqual([
      expect.objectContaining({
        queue: 'interactive',
        stream: `${env.streamPrefix}_JOBS`,
        consumer: 'worker-interactive',
        found: false,
        missing: 'consumer',
      }),
      expect.objectContaining({ queue: 'background', consumer: 'worker-background', found: false, missing: 'consumer' }),
    ]);
    expect(report.problems).toContain(
      `consumer worker-interactive does not exist on ${env.streamPrefix}_JOBS: no worker has started with NATS_STREAM_PREFIX=${env.streamPrefix}`,
    );
  });

  it('shows ready Deployments, real consumer lag and real queue depth, and exits 0', async () => {
    await env.declareWorkerConsumers();
    const jobIds = await env.createCanaries(3);
    await waitFor('the dispatches to be published', async () => (await env.admin.getQueueStats({})).outboxPending === 0);
    // A worker that took one message and has not acked it yet: one ack-pending, two pending.
    const consumer = await jetstream(env.nats).consumers.get(env.topology.jobsStream, env.topology.consumerName('interactive'));
    held = await consumer.next({ expires: 5_000 });
    expect(held).not.toBeNull();

    const { exitCode, out, err } = await status(['--json']);
    expect(err).toBe('');
    const report = JSON.parse(out);
    expect(report).toMatchObject({
      namespace: 'atelier',
      selector: 'app.kubernetes.io/part-of=atelier',
      context: 'fake',
      verdict: 'ready',
      exitCode: 0,
    });
    expect(exitCode).toBe(ExitCode.OK);
    expect(report.deployments.items.map((d: { name: string }) => d.name)).toEqual(['atelier-catalog', 'atelier-jobs', 'atelier-worker']);
    expect(report.workers).toEqual([{ name: 'atelier-worker', desired: 2, ready: 2, available: 2, autoscaler: null }]);
    expect(report.consumers.items[0]).toMatchObject({ queue: 'interactive', found: true, pending: 2, ackPending: 1 });
    expect(report.consumers.items[1]).toMatchObject({ queue: 'background', found: true, pending: 0, ackPending: 0 });
    expect(report.jobs.queues[0]).toMatchObject({ queue: 'interactive', ready: jobIds.length, running: 0 });
    expect(report.jobs).toMatchObject({ ok: true, outboxPending: 0, outboxDead: 0, expiredLeases: 0 });

    const list = kube.requests.find((r) => r.path === '/apis/apps/v1/namespaces/atelier/deployments');
    expect(list?.query.get('labelSelector')).toBe('app.kubernetes.io/part-of=atelier');
    expect(list?.authorization).toBe(`Bearer ${FAKE_KUBE_TOKEN}`);
    expect(kube.requests.some((r) => r.path === '/apis/autoscaling/v2/namespaces/atelier/horizontalpodautoscalers')).toBe(true);
  });

  it('prints a table that names a worker Deployment not fully ready and its autoscaler, and exits 1', async () => {
    const worker = kube.deployments.find((d) => d.name === 'atelier-worker')!;
    Object.assign(worker, { replicas: 3, readyReplicas: 1, availableReplicas: 1, updatedReplicas: 3 });
    kube.hpas.push({
      namespace: 'atelier',
      name: 'atelier-worker',
      target: { kind: 'Deployment', name: 'atelier-worker' },
      minReplicas: 2,
      maxReplicas: 10,
    });
    try {
      const { exitCode, out } = await status(['-n', 'atelier']);
      expect(exitCode).toBe(ExitCode.FAILURE);
      expect(out).toMatch(/worker\s+atelier-worker\s+1\/3\s+3\s+1\s+NOT READY/);
      expect(out).toMatch(/atelier-worker\s+3\s+1\s+1\s+HPA atelier-worker \(2–10\)/);
      expect(out).toMatch(/interactive\s+\S+_JOBS\s+worker-interactive\s+2\s+1\s+0/);
      expect(out).toContain('  - atelier-worker: 1 of 3 replicas ready, 1 available');
      expect(out.trimEnd().split('\n').at(-1)).toBe('NOT READY (exit 1)');
    } finally {
      Object.assign(worker, { replicas: 2, readyReplicas: 2, availableReplicas: 2, updatedReplicas: 2 });
      kube.hpas.length = 0;
    }
  });

  it('reports NATS and jobs out of reach as such, still shows the Deployments, and exits 69', async () => {
    const { exitCode, out } = await status([], { NATS_URL: 'nats://ops:secret@127.0.0.1:1', JOBS_ADDR: '127.0.0.1:1' });
    expect(exitCode).toBe(ExitCode.UNAVAILABLE);
    expect(out).toContain('unavailable: cannot reach NATS at nats://***@127.0.0.1:1 (NATS_URL): connection refused');
    expect(out).toContain('unavailable: cannot reach the jobs admin API at 127.0.0.1:1 (JOBS_ADDR): connect ECONNREFUSED 127.0.0.1:1');
    expect(out).toMatch(/worker\s+atelier-worker\s+2\/2/);
    expect(out).not.toContain('secret');
    expect(out).not.toMatch(/\n\s+at /); // no stack trace
    expect(out).toContain('INCOMPLETE: 2 sources could not be read (exit 69)');
  });

  it('reports an unreachable Kubernetes API and a stream prefix nobody uses', async () => {
    const { exitCode, out } = await status(['--context', 'elsewhere', '--json'], { NATS_STREAM_PREFIX: 'NOBODY_USES_THIS' });
    const report = JSON.parse(out);
    expect(exitCode).toBe(ExitCode.UNAVAILABLE);
    expect(report.context).toBe('elsewhere');
    expect(report.deployments).toMatchObject({ ok: false, error: { code: 'UNAVAILABLE', reason: 'KUBE_UNREACHABLE' } });
    expect(report.deployments.error.message).toContain(
      'cannot reach the Kubernetes API server to list Deployments in namespace atelier: ECONNREFUSED',
    );
    expect(report.problems).toContain(
      'stream NOBODY_USES_THIS_JOBS does not exist: jobs creates it at start-up with NATS_STREAM_PREFIX=NOBODY_USES_THIS — is the prefix right?',
    );
    expect(report.jobs.ok).toBe(true);
  });

  it('reports a kubeconfig context that does not exist as a configuration problem of that source', async () => {
    const { exitCode, out } = await status(['--context', 'nope', '--json']);
    expect(exitCode).toBe(ExitCode.UNAVAILABLE);
    expect(JSON.parse(out).deployments.error).toEqual({
      code: 'CONFIG',
      reason: 'INVALID_CONFIGURATION',
      message: '--context "nope" is not a context of the kubeconfig (it has: fake, elsewhere)',
    });
  });

  it('reports a refusal of the Kubernetes API with the RBAC it needs', async () => {
    kube.failWhen(/\/namespaces\/forbidden\//, 403, 'deployments.apps is forbidden: User "dev" cannot list resource "deployments"');
    const { exitCode, out } = await status(['--namespace', 'forbidden']);
    expect(exitCode).toBe(ExitCode.UNAVAILABLE);
    expect(out).toContain(
      'unavailable: cannot list Deployments in namespace forbidden: deployments.apps is forbidden: User "dev" cannot list',
    );
    expect(out).toContain('atelier-ops needs list on deployments and horizontalpodautoscalers');
  });
});
