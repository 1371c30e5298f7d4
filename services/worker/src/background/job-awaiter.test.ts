import { describe, expect, it } from 'vitest';
import type { jobsExecutionV1 } from '@atelier/contracts';
import { UnavailableError } from '@atelier/errors';
import type { PromiseClient } from '@atelier/grpc';
import { createLogger } from '@atelier/logging';
import { waitUntil } from '@atelier/testing';
import { WorkerMetrics } from '../worker-metrics.js';
import { JobAwaiter, type QueueSlotsOwner } from './job-awaiter.js';

type AwaitRequest = jobsExecutionV1.AwaitJobsRequest;
type Answer = (request: AwaitRequest, signal: AbortSignal) => Promise<jobsExecutionV1.AwaitJobsResponse>;

/** A queue's slots as QueueConsumer keeps them: handed-over jobs take one until they end. */
class Slots implements QueueSlotsOwner {
  running = 0;
  draining = false;
  private listener: (() => void) | undefined;
  constructor(private readonly concurrency: number) {}
  get freeSlots() {
    return this.draining ? 0 : Math.max(0, this.concurrency - this.running);
  }
  onSlotFreed(listener: () => void) {
    this.listener = listener;
  }
  runHandedOver(run: (drain: AbortSignal) => Promise<unknown>) {
    if (this.draining) return false;
    this.running += 1;
    void run(new AbortController().signal).finally(() => {
      this.running -= 1;
      this.listener?.();
    });
    return true;
  }
}

function handed(jobId: string, queue = 'interactive', leaseMs = 60_000): jobsExecutionV1.HandedOverJob {
  return {
    queue,
    traceContext: {},
    claimed: {
      job: { id: jobId } as jobsExecutionV1.ClaimedJob['job'],
      attempt: 1,
      leaseExpiresAt: new Date(Date.now() + leaseMs),
      heartbeatIntervalMs: 1000,
      timeoutMs: 1000,
      contentSafety: false,
      providerIdempotencyKey: jobId,
      providerRequestGeneration: 0,
    },
  };
}

function setUp(answer: Answer, options: { interactive?: number; background?: number; calls?: number } = {}) {
  const requests: AwaitRequest[] = [];
  const released: string[] = [];
  const ran: string[] = [];
  const finishers = new Map<string, () => void>();
  const execution = {
    awaitJobs: (request: AwaitRequest, call?: { signal?: AbortSignal }) => {
      requests.push(request);
      return answer(request, call!.signal!);
    },
    releaseJob: async (request: jobsExecutionV1.ReleaseJobRequest) => {
      released.push(request.jobId);
      return {};
    },
  } as unknown as PromiseClient<jobsExecutionV1.JobExecutionServiceClient>;
  const queues = { interactive: new Slots(options.interactive ?? 2), background: new Slots(options.background ?? 0) };
  const awaiter = new JobAwaiter({
    execution,
    workerId: 'w-1',
    queues,
    run: (claimed) =>
      new Promise<void>((resolve) => {
        ran.push(claimed.job!.id);
        finishers.set(claimed.job!.id, resolve);
      }),
    waitMs: 1_000,
    calls: options.calls ?? 4,
    logger: createLogger({ service: 'awaiter-test', level: 'silent' }),
    metrics: new WorkerMetrics(),
  });
  return { awaiter, queues, requests, released, ran, finish: (id: string) => finishers.get(id)?.() };
}

/** Answers from a script, one per call; past its end, waits until the call is given up. */
function scripted(...answers: (jobsExecutionV1.HandedOverJob[] | Error)[]): Answer {
  let next = 0;
  return (_request, signal) => {
    const answer = answers[next++];
    if (answer instanceof Error) return Promise.reject(answer);
    if (answer) return Promise.resolve({ jobs: answer });
    return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('cancelled')), { once: true }));
  };
}

describe('JobAwaiter', () => {
  it('keeps up to its calls open, sharing the free slots between them, at most 500 of a queue per call', async () => {
    const { awaiter, requests } = setUp(scripted(), { interactive: 1_000, background: 3 });
    awaiter.start();
    await waitUntil(() => requests.length === 4, { timeoutMs: 2_000 });
    expect(requests.map((r) => [r.interactiveSlots, r.backgroundSlots])).toEqual([
      [250, 1],
      [250, 1],
      [250, 1],
      [250, 0],
    ]);
    expect(requests[0]).toMatchObject({ workerId: 'w-1', waitMs: 1_000 });
    await awaiter.stop();

    const big = setUp(scripted(), { interactive: 4_000 });
    big.awaiter.start();
    await waitUntil(() => big.requests.length === 4, { timeoutMs: 2_000 });
    expect(big.requests.map((r) => r.interactiveSlots)).toEqual([500, 500, 500, 500]);
    await big.awaiter.stop();

    // Sixteen calls over 1 000 slots: no slot offered twice, none left out, and no seventeenth call.
    const many = setUp(scripted(), { interactive: 1_000, calls: 16 });
    many.awaiter.start();
    await waitUntil(() => many.requests.length === 16, { timeoutMs: 2_000 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(many.requests).toHaveLength(16);
    expect(many.requests.reduce((sum, r) => sum + r.interactiveSlots, 0)).toBe(1_000);
    expect(Math.max(...many.requests.map((r) => r.interactiveSlots))).toBeLessThanOrEqual(63);
    await many.awaiter.stop();
  });

  it('offers no slot twice: two free slots make two calls of one, and the others wait', async () => {
    const { awaiter, requests } = setUp(scripted(), { interactive: 2 });
    awaiter.start();
    await waitUntil(() => requests.length === 2, { timeoutMs: 2_000 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(requests.map((r) => [r.interactiveSlots, r.backgroundSlots])).toEqual([
      [1, 0],
      [1, 0],
    ]);
    await awaiter.stop();
  });

  it('runs what it is handed in its slot, sends no call while every slot is taken, and one as soon as a slot frees', async () => {
    const { awaiter, queues, requests, ran, finish } = setUp(scripted([handed('a')]), { interactive: 1 });
    awaiter.start();
    await waitUntil(() => ran.length === 1, { timeoutMs: 2_000 });
    expect(queues.interactive.running).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(requests).toHaveLength(1);
    finish('a');
    await waitUntil(() => requests.length === 2, { timeoutMs: 2_000 });
    expect(requests[1]).toMatchObject({ interactiveSlots: 1 });
    await awaiter.stop();
  });

  it('starts nothing of a job whose lease expired before the answer was read, and leaves it to the reaper', async () => {
    const { awaiter, ran, released } = setUp(scripted([handed('stale', 'interactive', -1), handed('fresh')]));
    awaiter.start();
    await waitUntil(() => ran.length === 1, { timeoutMs: 2_000 });
    expect(ran).toEqual(['fresh']);
    expect(released).toEqual([]);
    await awaiter.stop();
  });

  it('hands back a job its queue will not run (draining)', async () => {
    const { awaiter, queues, ran, released } = setUp(scripted([handed('late')]));
    awaiter.start();
    // The call went out with the slots free before the drain: its answer comes back to a draining queue.
    queues.interactive.draining = true;
    await waitUntil(() => released.length === 1, { timeoutMs: 2_000 });
    expect(released).toEqual(['late']);
    expect(ran).toEqual([]);
    await awaiter.stop();
  });

  it('backs off after failed calls and tries again; stopping gives up the calls in flight', async () => {
    // jobs is away for the first four calls: each call in line fails once, then pauses.
    let calls = 0;
    const failFirst: Answer = (_request, signal) =>
      ++calls <= 4
        ? Promise.reject(new UnavailableError('jobs is away'))
        : new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('cancelled')), { once: true }));
    const { awaiter, requests } = setUp(failFirst, { interactive: 8 });
    const started = Date.now();
    awaiter.start();
    await waitUntil(() => requests.length >= 5, { timeoutMs: 5_000 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(300); // a pause, not a tight loop
    const stopping = Date.now();
    await awaiter.stop();
    expect(Date.now() - stopping).toBeLessThan(500);
  });
});
