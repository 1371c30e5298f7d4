import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '@atelier/config';
import { ErrorCode } from '@atelier/errors';
import { connectKube, toDeploymentSummary } from './kube-client.js';
import { startFakeKubeApi, type FakeKubeApi } from './test-support/fake-kube-api.js';

let kube: FakeKubeApi;
let directory: string;

function kubeconfig(name: string, server: string, options: { skipTls?: boolean; context?: string } = {}): string {
  const context = options.context ?? name;
  const file = path.join(directory, `${name}.yaml`);
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{ name: ${name}, cluster: { server: "${server}"${options.skipTls === false ? '' : ', insecure-skip-tls-verify: true'} } }]`,
      `users: [{ name: ${name}-user, user: { token: t } }]`,
      `contexts: [{ name: ${context}, context: { cluster: ${name}, user: ${name}-user } }]`,
      `current-context: ${context}`,
      '',
    ].join('\n'),
  );
  return file;
}

async function configError(promise: Promise<unknown>): Promise<ConfigError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

beforeAll(async () => {
  kube = await startFakeKubeApi();
  directory = mkdtempSync(path.join(tmpdir(), 'atelier-ops-kubeconfig-'));
});

afterEach(() => {
  vi.unstubAllEnvs();
  kube.reset();
});

afterAll(async () => {
  await kube?.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('kube client - reading Deployments', () => {
  it('applies the API server defaults a Deployment leaves out, and sees a rollout the controller has not observed', () => {
    expect(
      toDeploymentSummary({ metadata: { name: 'a', namespace: 'n', generation: 3 }, spec: {} as never, status: { observedGeneration: 2 } }),
    ).toEqual({
      name: 'a',
      namespace: 'n',
      component: undefined,
      desired: 1,
      ready: 0,
      available: 0,
      updated: 0,
      observed: false,
    });
  });

  it('reads Deployments sorted by name with their component label', async () => {
    kube.reset({
      deployments: [
        { namespace: 'ns', name: 'b-worker', labels: { 'app.kubernetes.io/component': 'worker' }, replicas: 3, readyReplicas: 2 },
        { namespace: 'ns', name: 'a-jobs', labels: { 'app.kubernetes.io/component': 'jobs' }, replicas: 1, readyReplicas: 1 },
      ],
    });
    vi.stubEnv('KUBECONFIG', kube.writeKubeconfig());
    const client = await connectKube({ context: undefined, timeoutMs: 2_000 });
    expect(client.context).toBe('fake');
    const deployments = await client.listDeployments('ns', 'x!=y');
    expect(deployments.map((d) => [d.name, d.component, d.desired, d.ready])).toEqual([
      ['a-jobs', 'jobs', 1, 1],
      ['b-worker', 'worker', 3, 2],
    ]);
  });

  it('answers no autoscalers when the cluster serves no autoscaling/v2', async () => {
    kube.failWhen(/horizontalpodautoscalers$/, 404, 'the server could not find the requested resource');
    vi.stubEnv('KUBECONFIG', kube.writeKubeconfig());
    const client = await connectKube({ context: undefined, timeoutMs: 2_000 });
    expect(await client.listAutoscalers('ns')).toEqual([]);
  });
});

describe('kube client - kubeconfig loading', () => {
  it('merges the files KUBECONFIG lists, as kubectl does, and switches to the context asked for', async () => {
    const first = kubeconfig('first', 'http://127.0.0.1:1');
    const second = kubeconfig('second', kube.url);
    vi.stubEnv('KUBECONFIG', [first, second].join(path.delimiter));
    const client = await connectKube({ context: 'second', timeoutMs: 2_000 });
    expect({ context: client.context, server: client.server }).toEqual({ context: 'second', server: kube.url });
    expect(await client.listDeployments('ns', 'a=b')).toEqual([]);
  });

  it('refuses a plain-http cluster that does not opt out of TLS verification, naming the fix', async () => {
    vi.stubEnv('KUBECONFIG', kubeconfig('plain', kube.url, { skipTls: false }));
    const error = await configError(connectKube({ context: undefined, timeoutMs: 2_000 }));
    expect(error.problems).toEqual([
      {
        variable: 'KUBECONFIG',
        problem: `cluster "plain" is served over plain http (${kube.url}): set insecure-skip-tls-verify: true on it`,
      },
    ]);
  });

  it('refuses a kubeconfig that cannot be parsed', async () => {
    const file = path.join(directory, 'broken.yaml');
    writeFileSync(file, 'clusters: [unclosed\n');
    vi.stubEnv('KUBECONFIG', file);
    const error = await configError(connectKube({ context: undefined, timeoutMs: 2_000 }));
    expect(error.problems[0]?.variable).toBe('KUBECONFIG');
    expect(error.problems[0]?.problem).toMatch(/^cannot be read: /);
  });

  // Inside a pod (a CI runner on Kubernetes) client-node rightly falls back to the service account.
  const inCluster = existsSync('/var/run/secrets/kubernetes.io/serviceaccount/token');
  it.skipIf(inCluster)('says so when there is no kubeconfig at all instead of trying localhost:8080', async () => {
    vi.stubEnv('KUBECONFIG', '');
    vi.stubEnv('HOME', directory);
    const error = await configError(connectKube({ context: undefined, timeoutMs: 2_000 }));
    expect(error.problems[0]?.problem).toMatch(/^names no cluster: set KUBECONFIG or write ~\/\.kube\/config/);
  });
});

describe('kube client - deadlines', () => {
  let silent: Server;

  beforeAll(async () => {
    // Accepts connections and never answers: a black-holed API server.
    silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    silent.closeAllConnections();
    await new Promise((resolve) => silent.close(resolve));
  });

  it('gives up on an API server that does not answer within the deadline', async () => {
    vi.stubEnv('KUBECONFIG', kubeconfig('silent', `http://127.0.0.1:${(silent.address() as AddressInfo).port}`));
    const client = await connectKube({ context: undefined, timeoutMs: 300 });
    const started = Date.now();
    const error = await client.listDeployments('ns', 'a=b').catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(error).toMatchObject({ code: ErrorCode.DEADLINE_EXCEEDED, reason: 'KUBE_TIMEOUT' });
    expect((error as Error).message).toContain('the Kubernetes API did not answer within 300 ms (context silent');
  });
});
