import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { runCli } from './cli.js';
import { ExitCode } from './exit-codes.js';
import { startFakeKubeApi, type FakeDeployment, type FakeHpa, type FakeKubeApi } from './test-support/fake-kube-api.js';
import { captureIo } from './test-support/ops-test-env.js';

const worker = (namespace: string, name: string, instance: string, replicas = 2): FakeDeployment => ({
  namespace,
  name,
  labels: {
    'app.kubernetes.io/part-of': 'atelier',
    'app.kubernetes.io/instance': instance,
    'app.kubernetes.io/component': 'worker',
  },
  replicas,
  readyReplicas: replicas,
  availableReplicas: replicas,
  updatedReplicas: replicas,
});
const catalog: FakeDeployment = {
  namespace: 'atelier',
  name: 'atelier-catalog',
  labels: { 'app.kubernetes.io/part-of': 'atelier', 'app.kubernetes.io/component': 'catalog' },
  replicas: 2,
};
const hpa = (overrides: Partial<FakeHpa> = {}): FakeHpa => ({
  namespace: 'atelier',
  name: 'atelier-worker',
  target: { kind: 'Deployment', name: 'atelier-worker' },
  minReplicas: 2,
  maxReplicas: 10,
  ...overrides,
});

let kube: FakeKubeApi;

beforeAll(async () => {
  kube = await startFakeKubeApi();
  vi.stubEnv('KUBECONFIG', kube.writeKubeconfig());
});

beforeEach(() => {
  kube.reset({ deployments: [catalog, worker('atelier', 'atelier-worker', 'atelier')] });
});

afterAll(async () => {
  vi.unstubAllEnvs();
  await kube?.close();
});

async function scale(args: string[], env: NodeJS.ProcessEnv = {}) {
  const io = captureIo({ ATELIER_OPS_TIMEOUT_MS: '3000', ...env });
  const exitCode = await runCli(['scale-workers', ...args], io);
  return { exitCode, out: io.out(), err: io.err() };
}

const patches = () => kube.requests.filter((r) => r.method === 'PATCH');

describe('scale-workers - the worker Deployment through its scale subresource', () => {
  it('finds the worker by selector and merge-patches spec.replicas of its scale', async () => {
    const { exitCode, out, err } = await scale(['5']);
    expect({ exitCode, err }).toEqual({ exitCode: ExitCode.OK, err: '' });
    expect(out).toBe(
      'atelier-worker in namespace atelier (context fake): replicas from 2 to 5; 2 ready now. Follow the rollout with `atelier-ops status`.\n',
    );
    const list = kube.requests.find((r) => r.method === 'GET' && r.path === '/apis/apps/v1/namespaces/atelier/deployments');
    expect(list?.query.get('labelSelector')).toBe('app.kubernetes.io/part-of=atelier,app.kubernetes.io/component=worker');
    expect(patches()).toEqual([
      expect.objectContaining({
        path: '/apis/apps/v1/namespaces/atelier/deployments/atelier-worker/scale',
        contentType: 'application/merge-patch+json',
        body: { spec: { replicas: 5 } },
      }),
    ]);
    expect(kube.deployments.find((d) => d.name === 'atelier-worker')?.replicas).toBe(5);
  });

  it('scales to zero, in the namespace and release --namespace and --selector name', async () => {
    kube.reset({ deployments: [worker('staging', 'blue-worker', 'blue'), worker('staging', 'green-worker', 'green')] });
    const { exitCode, out } = await scale(['0', '-n', 'staging', '--selector=app.kubernetes.io/instance=green']);
    expect(exitCode).toBe(ExitCode.OK);
    expect(out).toContain('green-worker in namespace staging (context fake): replicas from 2 to 0');
    expect(kube.requests[0]?.query.get('labelSelector')).toBe('app.kubernetes.io/instance=green,app.kubernetes.io/component=worker');
    expect(patches().map((p) => p.path)).toEqual(['/apis/apps/v1/namespaces/staging/deployments/green-worker/scale']);
  });

  it('takes the namespace and selector defaults from the environment', async () => {
    kube.reset({ deployments: [worker('prod', 'blue-worker', 'blue')] });
    const { exitCode } = await scale(['3'], { ATELIER_NAMESPACE: 'prod', ATELIER_SELECTOR: 'app.kubernetes.io/instance=blue' });
    expect(exitCode).toBe(ExitCode.OK);
    expect(patches().map((p) => p.path)).toEqual(['/apis/apps/v1/namespaces/prod/deployments/blue-worker/scale']);
  });

  it('says when the workers already have that many replicas', async () => {
    const { exitCode, out } = await scale(['2']);
    expect(exitCode).toBe(ExitCode.OK);
    expect(out).toContain('already at 2 replicas');
  });

  it('refuses while an HPA manages the workers, and scales with a warning under --force', async () => {
    kube.hpas.push(hpa(), hpa({ name: 'other', target: { kind: 'Deployment', name: 'atelier-catalog' } }));
    const refused = await scale(['8']);
    expect(refused.exitCode).toBe(ExitCode.FAILURE);
    expect(refused.err).toBe(
      'atelier-ops: WORKERS_AUTOSCALED: HPA atelier-worker (2–10) manages atelier-worker and would replace a manual scale within seconds; ' +
        'change its bounds (the chart values) instead, or re-run with --force to scale anyway\n',
    );
    expect(patches()).toEqual([]);

    const forced = await scale(['8', '--force']);
    expect(forced.exitCode).toBe(ExitCode.OK);
    expect(forced.err).toBe(
      'atelier-ops: warning: HPA atelier-worker (2–10) manages atelier-worker and will override this scale on its next sync (--force)\n',
    );
    expect(patches()).toHaveLength(1);
  });

  it('names the KEDA ScaledObject behind the HPA it created', async () => {
    kube.hpas.push(
      hpa({ name: 'keda-hpa-atelier-worker', labels: { 'scaledobject.keda.sh/name': 'atelier-worker' }, minReplicas: 1, maxReplicas: 20 }),
    );
    const { exitCode, err } = await scale(['4']);
    expect(exitCode).toBe(ExitCode.FAILURE);
    expect(err).toContain('KEDA ScaledObject atelier-worker via HPA keda-hpa-atelier-worker (1–20) manages atelier-worker');
  });

  it('does not scale blind when the HPAs cannot be listed, unless --force', async () => {
    kube.failWhen(/horizontalpodautoscalers$/, 403, 'horizontalpodautoscalers.autoscaling is forbidden');
    const refused = await scale(['4']);
    expect(refused.exitCode).toBe(ExitCode.FAILURE);
    expect(refused.err).toContain('AUTOSCALERS_UNKNOWN: cannot check whether an autoscaler manages atelier-worker');
    expect(patches()).toEqual([]);
    const forced = await scale(['4', '--force']);
    expect(forced.exitCode).toBe(ExitCode.OK);
    expect(forced.err).toContain('warning: cannot check for an autoscaler on atelier-worker; scaling anyway (--force)');
  });

  it('refuses when no worker Deployment, or more than one, matches', async () => {
    const none = await scale(['3', '-n', 'empty']);
    expect(none.exitCode).toBe(ExitCode.FAILURE);
    expect(none.err).toContain(
      'WORKER_DEPLOYMENT_NOT_FOUND: no worker Deployment in namespace empty matches app.kubernetes.io/part-of=atelier,app.kubernetes.io/component=worker (context fake)',
    );

    kube.reset({ deployments: [worker('atelier', 'blue-worker', 'blue'), worker('atelier', 'green-worker', 'green')] });
    const several = await scale(['3']);
    expect(several.exitCode).toBe(ExitCode.FAILURE);
    expect(several.err).toContain('WORKER_DEPLOYMENT_AMBIGUOUS: 2 worker Deployments match');
    expect(several.err).toContain('blue-worker, green-worker; narrow --selector to one release, e.g. app.kubernetes.io/instance=<release>');
    expect(patches()).toEqual([]);
  });

  it('exits 77 when the API server forbids the patch, 69 when it cannot be reached', async () => {
    kube.failWhen(/\/scale$/, 403, 'deployments.apps "atelier-worker" is forbidden: User "dev" cannot patch resource "deployments/scale"');
    const forbidden = await scale(['3']);
    expect(forbidden.exitCode).toBe(ExitCode.NO_PERMISSION);
    expect(forbidden.err).toMatch(
      /^atelier-ops: KUBE_FORBIDDEN: cannot scale Deployment atelier-worker in namespace atelier: deployments\.apps/,
    );

    const unreachable = await scale(['3', '--context', 'elsewhere']);
    expect(unreachable.exitCode).toBe(ExitCode.UNAVAILABLE);
    expect(unreachable.err).toContain(
      'KUBE_UNREACHABLE: cannot reach the Kubernetes API server to list Deployments in namespace atelier: ECONNREFUSED',
    );
    expect(unreachable.err).toContain(`(context elsewhere, ${kube.unreachableUrl})`);
  });

  it('exits 78 naming the kubeconfig problem', async () => {
    vi.stubEnv('KUBECONFIG', '/nonexistent/kubeconfig.yaml');
    try {
      const missing = await scale(['3']);
      expect(missing.exitCode).toBe(ExitCode.CONFIG);
      expect(missing.err).toMatch(/^atelier-ops: invalid configuration:\n {2}KUBECONFIG cannot be read: ENOENT/);
    } finally {
      vi.stubEnv('KUBECONFIG', kube.writeKubeconfig());
    }
    const unknownContext = await scale(['3', '--context', 'prod']);
    expect(unknownContext.exitCode).toBe(ExitCode.CONFIG);
    expect(unknownContext.err).toContain('--context "prod" is not a context of the kubeconfig (it has: fake, elsewhere)');
  });
});
