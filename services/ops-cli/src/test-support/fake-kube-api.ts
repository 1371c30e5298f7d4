import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '@atelier/testing';

/**
 * A Kubernetes API server small enough to read: plain HTTP on 127.0.0.1, answering only what
 * atelier-ops calls (list Deployments by label selector, the scale subresource, HPAs), keeping
 * its objects in memory and recording every request so tests can assert the selector, the
 * namespace, the patch body and its content type. Everything else answers a 404 Status, as a
 * real API server does for an unknown path.
 */

export interface FakeDeployment {
  namespace: string;
  name: string;
  labels: Record<string, string>;
  /** spec.replicas */
  replicas: number;
  readyReplicas?: number;
  availableReplicas?: number;
  updatedReplicas?: number;
  generation?: number;
  observedGeneration?: number;
}

export interface FakeHpa {
  namespace: string;
  name: string;
  labels?: Record<string, string>;
  target: { kind: string; name: string };
  minReplicas: number;
  maxReplicas: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  contentType: string | undefined;
  authorization: string | undefined;
  body: unknown;
}

export interface FakeKubeApi {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** `http://127.0.0.1:<port>` of a closed port: the `elsewhere` context's unreachable cluster. */
  readonly unreachableUrl: string;
  readonly deployments: FakeDeployment[];
  readonly hpas: FakeHpa[];
  readonly requests: RecordedRequest[];
  /** Answers requests whose path matches with this HTTP status (a Status body), e.g. 403. */
  failWhen(pathPattern: RegExp, status: number, message: string): void;
  /** Replaces the objects and forgets requests and failures: a clean cluster for the next test. */
  reset(state?: { deployments?: FakeDeployment[]; hpas?: FakeHpa[] }): void;
  /** Writes a kubeconfig (context `fake`, plus `elsewhere` pointing at a closed port) and answers its path. */
  writeKubeconfig(): string;
  close(): Promise<void>;
}

/** The bearer token of the kubeconfig's user; the fake does not check it, tests assert it was sent. */
export const FAKE_KUBE_TOKEN = 'fake-operator-token';

function status(code: number, reason: string, message: string) {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
}

/** Equality-based selectors (`a=b`, `a==b`, `a!=b`, `a`, `!a`), comma-separated, as the API server reads them. */
export function matchesSelector(labels: Record<string, string>, selector: string | null): boolean {
  if (!selector) return true;
  return selector.split(',').every((raw) => {
    const term = raw.trim();
    const notEqual = /^([^!=]+)!=(.*)$/.exec(term);
    if (notEqual) return labels[notEqual[1]!.trim()] !== notEqual[2]!.trim();
    const equal = /^([^!=]+)==?(.*)$/.exec(term);
    if (equal) return labels[equal[1]!.trim()] === equal[2]!.trim();
    if (term.startsWith('!')) return !(term.slice(1) in labels);
    return term in labels;
  });
}

function deploymentObject(d: FakeDeployment) {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: d.name, namespace: d.namespace, labels: d.labels, generation: d.generation ?? 1 },
    spec: {
      replicas: d.replicas,
      selector: { matchLabels: { 'app.kubernetes.io/name': d.name } },
      template: { metadata: {}, spec: { containers: [] } },
    },
    status: {
      observedGeneration: d.observedGeneration ?? d.generation ?? 1,
      replicas: d.replicas,
      readyReplicas: d.readyReplicas,
      availableReplicas: d.availableReplicas,
      updatedReplicas: d.updatedReplicas,
    },
  };
}

function scaleObject(d: FakeDeployment) {
  return {
    apiVersion: 'autoscaling/v1',
    kind: 'Scale',
    metadata: { name: d.name, namespace: d.namespace },
    spec: { replicas: d.replicas },
    status: { replicas: d.readyReplicas ?? 0, selector: `app.kubernetes.io/name=${d.name}` },
  };
}

function hpaObject(h: FakeHpa) {
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: h.name, namespace: h.namespace, labels: h.labels ?? {} },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', ...h.target }, minReplicas: h.minReplicas, maxReplicas: h.maxReplicas },
    status: { currentReplicas: h.minReplicas, desiredReplicas: h.minReplicas },
  };
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The replicas a scale PATCH asks for, in each patch flavour the API server accepts. */
function replicasFromPatch(contentType: string | undefined, body: unknown): number | undefined {
  if (contentType?.startsWith('application/json-patch+json') && Array.isArray(body)) {
    const op = body.find((o: { path?: string }) => o.path === '/spec/replicas') as { value?: unknown } | undefined;
    return typeof op?.value === 'number' ? op.value : undefined;
  }
  const replicas = (body as { spec?: { replicas?: unknown } } | undefined)?.spec?.replicas;
  return typeof replicas === 'number' ? replicas : undefined;
}

export async function startFakeKubeApi(initial: { deployments?: FakeDeployment[]; hpas?: FakeHpa[] } = {}): Promise<FakeKubeApi> {
  const deployments = [...(initial.deployments ?? [])];
  const hpas = [...(initial.hpas ?? [])];
  const requests: RecordedRequest[] = [];
  const failures: { pattern: RegExp; status: number; message: string }[] = [];
  const directory = mkdtempSync(path.join(tmpdir(), 'atelier-ops-kube-'));
  let kubeconfigs = 0;

  const answer = (response: ServerResponse, code: number, body: unknown) => {
    response.writeHead(code, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://fake');
    const body = await readBody(request);
    const contentType = request.headers['content-type'];
    requests.push({
      method: request.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      contentType,
      authorization: request.headers.authorization,
      body,
    });

    const failure = failures.find((f) => f.pattern.test(url.pathname));
    if (failure)
      return answer(
        response,
        failure.status,
        status(failure.status, failure.status === 403 ? 'Forbidden' : 'InternalError', failure.message),
      );

    const list = /^\/apis\/apps\/v1\/namespaces\/([^/]+)\/deployments$/.exec(url.pathname);
    if (list && request.method === 'GET') {
      const items = deployments
        .filter((d) => d.namespace === list[1] && matchesSelector(d.labels, url.searchParams.get('labelSelector')))
        .map(deploymentObject);
      return answer(response, 200, { apiVersion: 'apps/v1', kind: 'DeploymentList', metadata: { resourceVersion: '1' }, items });
    }

    const scale = /^\/apis\/apps\/v1\/namespaces\/([^/]+)\/deployments\/([^/]+)\/scale$/.exec(url.pathname);
    if (scale) {
      const deployment = deployments.find((d) => d.namespace === scale[1] && d.name === scale[2]);
      if (!deployment) return answer(response, 404, status(404, 'NotFound', `deployments.apps "${scale[2]}" not found`));
      if (request.method === 'GET') return answer(response, 200, scaleObject(deployment));
      const replicas =
        request.method === 'PUT'
          ? (body as { spec?: { replicas?: unknown } } | undefined)?.spec?.replicas
          : request.method === 'PATCH'
            ? replicasFromPatch(contentType, body)
            : undefined;
      if (typeof replicas !== 'number') return answer(response, 422, status(422, 'Invalid', 'spec.replicas: Required value'));
      deployment.replicas = replicas;
      return answer(response, 200, scaleObject(deployment));
    }

    const hpaList = /^\/apis\/autoscaling\/v2\/namespaces\/([^/]+)\/horizontalpodautoscalers$/.exec(url.pathname);
    if (hpaList && request.method === 'GET') {
      const items = hpas.filter((h) => h.namespace === hpaList[1]).map(hpaObject);
      return answer(response, 200, { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscalerList', metadata: {}, items });
    }

    return answer(response, 404, status(404, 'NotFound', 'the server could not find the requested resource'));
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => answer(response, 500, status(500, 'InternalError', String(error))));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  // A port nothing listens on refuses connections (fetch will not even try well-known ports such as 1).
  const unreachableUrl = `http://127.0.0.1:${await freePort()}`;

  return {
    url,
    unreachableUrl,
    deployments,
    hpas,
    requests,
    failWhen(pattern, code, message) {
      failures.push({ pattern, status: code, message });
    },
    reset(state = {}) {
      deployments.splice(0, deployments.length, ...(state.deployments ?? []));
      hpas.splice(0, hpas.length, ...(state.hpas ?? []));
      requests.length = 0;
      failures.length = 0;
    },
    writeKubeconfig() {
      const file = path.join(directory, `kubeconfig-${(kubeconfigs += 1)}.yaml`);
      writeFileSync(
        file,
        [
          'apiVersion: v1',
          'kind: Config',
          'clusters:',
          '  - name: fake',
          '    cluster:',
          `      server: ${url}`,
          '      insecure-skip-tls-verify: true',
          '  - name: unreachable',
          '    cluster:',
          `      server: ${unreachableUrl}`,
          '      insecure-skip-tls-verify: true',
          'users:',
          '  - name: fake-operator',
          '    user:',
          `      token: ${FAKE_KUBE_TOKEN}`,
          'contexts:',
          '  - name: fake',
          '    context: { cluster: fake, user: fake-operator }',
          '  - name: elsewhere',
          '    context: { cluster: unreachable, user: fake-operator }',
          'current-context: fake',
          '',
        ].join('\n'),
      );
      return file;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
