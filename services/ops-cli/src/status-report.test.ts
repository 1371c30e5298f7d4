import { describe, expect, it } from 'vitest';
import type { ConsumerLag } from './consumer-lag.js';
import { ExitCode } from './exit-codes.js';
import type { DeploymentSummary } from './kube-client.js';
import {
  assessStatus,
  formatStatusJson,
  formatStatusTable,
  isDeploymentReady,
  type JobsBacklog,
  type StatusSources,
} from './status-report.js';

const deployment = (
  component: string,
  desired: number,
  ready = desired,
  overrides: Partial<DeploymentSummary> = {},
): DeploymentSummary => ({
  name: `atelier-${component}`,
  namespace: 'atelier',
  component,
  desired,
  ready,
  available: ready,
  updated: desired,
  observed: true,
  ...overrides,
});

const lag = (queue: 'interactive' | 'background', pending: number, ackPending: number): ConsumerLag => ({
  queue,
  stream: 'ATELIER_JOBS',
  consumer: `worker-${queue}`,
  found: true,
  pending,
  ackPending,
  redelivered: 0,
  waiting: 1,
});

const backlog = (overrides: Partial<JobsBacklog> = {}): JobsBacklog => ({
  queues: [
    { queue: 'interactive', ready: 4, delayed: 1, running: 2, oldestReadyAgeMs: 1_500 },
    { queue: 'background', ready: 0, delayed: 0, running: 0, oldestReadyAgeMs: 0 },
  ],
  outboxPending: 0,
  outboxDead: 0,
  outboxOldestPendingAgeMs: 0,
  expiredLeases: 0,
  ...overrides,
});

function sources(overrides: Partial<StatusSources> = {}): StatusSources {
  return {
    namespace: 'atelier',
    selector: 'app.kubernetes.io/part-of=atelier',
    kubeContext: 'prod',
    jobsAddress: '127.0.0.1:50053',
    streamPrefix: 'ATELIER',
    kubernetes: {
      ok: true,
      value: { deployments: [deployment('jobs', 2), deployment('worker', 3)], autoscalers: { ok: true, value: [] } },
    },
    consumers: { ok: true, value: [lag('interactive', 12, 2), lag('background', 0, 0)] },
    jobs: { ok: true, value: backlog() },
    ...overrides,
  };
}

const unreachable = {
  code: 'UNAVAILABLE',
  reason: 'NATS_UNREACHABLE',
  message: 'cannot reach NATS at nats://127.0.0.1:4222 (NATS_URL): connection refused',
};

describe('status report - verdict', () => {
  it('is ready, exit 0, when every Deployment is rolled out and every source answered', () => {
    const report = assessStatus(sources());
    expect(report).toMatchObject({ verdict: 'ready', exitCode: ExitCode.OK, problems: [], unavailable: [], warnings: [] });
    expect(report.workers).toEqual([{ name: 'atelier-worker', desired: 3, ready: 3, available: 3, autoscaler: undefined }]);
  });

  it('counts a Deployment ready only once every desired replica is updated, ready and available and the spec observed', () => {
    expect(isDeploymentReady(deployment('worker', 0))).toBe(true);
    expect(isDeploymentReady(deployment('worker', 3, 2))).toBe(false);
    expect(isDeploymentReady(deployment('worker', 3, 3, { updated: 2 }))).toBe(false);
    expect(isDeploymentReady(deployment('worker', 3, 3, { available: 2 }))).toBe(false);
    expect(isDeploymentReady(deployment('worker', 3, 3, { observed: false }))).toBe(false);
  });

  it('is not ready, exit 1, for a Deployment short of replicas, a missing worker or a missing consumer', () => {
    const report = assessStatus(
      sources({
        kubernetes: {
          ok: true,
          value: { deployments: [deployment('jobs', 2, 1, { updated: 1, observed: false })], autoscalers: { ok: true, value: [] } },
        },
        consumers: {
          ok: true,
          value: [
            lag('interactive', 0, 0),
            { queue: 'background', stream: 'ATELIER_JOBS', consumer: 'worker-background', found: false, missing: 'consumer' },
          ],
        },
      }),
    );
    expect(report).toMatchObject({ verdict: 'not-ready', exitCode: ExitCode.FAILURE, unavailable: [] });
    expect(report.problems).toEqual([
      'no worker Deployment (label app.kubernetes.io/component=worker) among them',
      'atelier-jobs: 1 of 2 replicas ready, rolling out (1 of 2 updated), 1 available',
      'consumer worker-background does not exist on ATELIER_JOBS: no worker has started with NATS_STREAM_PREFIX=ATELIER',
    ]);
  });

  it('is not ready when no Deployment matches the selector', () => {
    const report = assessStatus(sources({ kubernetes: { ok: true, value: { deployments: [], autoscalers: { ok: true, value: [] } } } }));
    expect(report.problems).toEqual([
      'no Deployment in namespace atelier matches app.kubernetes.io/part-of=atelier (wrong --namespace or --selector?)',
    ]);
  });

  it('is incomplete, exit 69, when a source could not be read, even with problems elsewhere', () => {
    const report = assessStatus(
      sources({
        kubernetes: { ok: true, value: { deployments: [deployment('worker', 2, 0)], autoscalers: { ok: true, value: [] } } },
        consumers: { ok: false, error: unreachable },
      }),
    );
    expect(report).toMatchObject({ verdict: 'incomplete', exitCode: ExitCode.UNAVAILABLE });
    expect(report.unavailable).toEqual([`NATS: ${unreachable.message}`]);
    expect(report.problems).toEqual(['atelier-worker: 0 of 2 replicas ready, 0 available']);
  });

  it('warns about dead events, a stalled outbox, expired leases, idle-scaled workers and unknown autoscalers without failing', () => {
    const report = assessStatus(
      sources({
        kubernetes: {
          ok: true,
          value: {
            deployments: [deployment('worker', 0)],
            autoscalers: { ok: false, error: { code: 'PERMISSION_DENIED', reason: 'KUBE_FORBIDDEN', message: 'forbidden' } },
          },
        },
        jobs: { ok: true, value: backlog({ outboxDead: 2, outboxPending: 40, outboxOldestPendingAgeMs: 95_000, expiredLeases: 1 }) },
      }),
    );
    expect(report).toMatchObject({ verdict: 'ready', exitCode: ExitCode.OK });
    expect(report.warnings).toEqual([
      'cannot tell whether an autoscaler manages the workers: forbidden',
      '2 dead outbox events: see `atelier-ops dead-letters list`',
      'the oldest due outbox event has waited 1m 35s: is the relay in jobs publishing (can jobs reach NATS)?',
      '1 running job with an expired lease, waiting for the reaper',
      'the workers are scaled to 0 while 4 jobs wait: `atelier-ops scale-workers <n>`',
    ]);
  });

  it("attributes a worker's autoscaler only when it targets that Deployment", () => {
    const autoscalers = [
      { name: 'keda-hpa-w', targetKind: 'Deployment', targetName: 'atelier-worker', minReplicas: 1, maxReplicas: 20, scaledObject: 'w' },
      { name: 'other', targetKind: 'Deployment', targetName: 'atelier-jobs', minReplicas: 2, maxReplicas: 4, scaledObject: undefined },
    ];
    const report = assessStatus(
      sources({
        kubernetes: { ok: true, value: { deployments: [deployment('worker', 2)], autoscalers: { ok: true, value: autoscalers } } },
      }),
    );
    expect(report.workers[0]?.autoscaler?.name).toBe('keda-hpa-w');
  });
});

describe('status report - output', () => {
  it('prints one aligned block per source, then the verdict', () => {
    expect(formatStatusTable(assessStatus(sources()))).toBe(
      [
        'Atelier in namespace atelier (selector app.kubernetes.io/part-of=atelier, context prod)',
        '',
        'Deployments',
        '  COMPONENT  DEPLOYMENT      READY  UP-TO-DATE  AVAILABLE',
        '  jobs       atelier-jobs    2/2    2           2',
        '  worker     atelier-worker  3/3    3           3',
        '',
        'Workers',
        '  DEPLOYMENT      DESIRED  READY  AVAILABLE  AUTOSCALER',
        '  atelier-worker  3        3      3          none',
        '',
        'JetStream consumers (NATS_STREAM_PREFIX=ATELIER)',
        '  QUEUE        STREAM        CONSUMER            PENDING  ACK-PENDING  REDELIVERED  WAITING',
        '  interactive  ATELIER_JOBS  worker-interactive  12       2            0            1',
        '  background   ATELIER_JOBS  worker-background   0        0            0            1',
        '',
        'Jobs (127.0.0.1:50053)',
        '  QUEUE        READY  DELAYED  RUNNING  OLDEST READY',
        '  interactive  4      1        2        1.5s',
        '  background   0      0        0        -',
        '  outbox: 0 pending, 0 dead; expired leases: 0',
        '',
        'READY (exit 0)',
        '',
      ].join('\n'),
    );
  });

  it('prints an unreadable source in place, with its reason, and the verdict says what is missing', () => {
    const text = formatStatusTable(assessStatus(sources({ consumers: { ok: false, error: unreachable } })));
    expect(text).toContain(`JetStream consumers (NATS_STREAM_PREFIX=ATELIER)\n  unavailable: ${unreachable.message}\n`);
    expect(text.endsWith('INCOMPLETE: 1 source could not be read (exit 69)\n')).toBe(true);
  });

  it('gives scripts a stable JSON document with each source as ok or error', () => {
    const document = JSON.parse(formatStatusJson(assessStatus(sources({ consumers: { ok: false, error: unreachable } }))));
    expect(Object.keys(document)).toEqual([
      'namespace',
      'selector',
      'context',
      'verdict',
      'exitCode',
      'deployments',
      'workers',
      'consumers',
      'jobs',
      'problems',
      'unavailable',
      'warnings',
    ]);
    expect(document.deployments.items[1]).toEqual({
      name: 'atelier-worker',
      namespace: 'atelier',
      component: 'worker',
      desired: 3,
      ready: 3,
      available: 3,
      updated: 3,
      observed: true,
      isReady: true,
    });
    expect(document.consumers).toEqual({ ok: false, error: unreachable });
    expect(document.jobs).toMatchObject({
      ok: true,
      address: '127.0.0.1:50053',
      outboxDead: 0,
      queues: [{ queue: 'interactive', ready: 4 }, { queue: 'background' }],
    });
    expect(document.workers).toEqual([{ name: 'atelier-worker', desired: 3, ready: 3, available: 3, autoscaler: null }]);
  });
});
