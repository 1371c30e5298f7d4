import { afterEach, describe, expect, it } from 'vitest';
import { jobsV1 } from '@atelier/contracts';
import { UnavailableError } from '@atelier/errors';
import type { ServerStreamCall } from '@atelier/grpc';
import { Counter, createMetricsRegistry } from '@atelier/metrics';
import { QueuedJobViews, type OpenWatch } from './queued-job-views.js';

const queued = (version: number, queuePosition: number) =>
  jobsV1.Job.fromPartial({
    id: 'job-1',
    userId: 'alice',
    status: jobsV1.JobStatus.QUEUED,
    version,
    queuePosition,
    timings: { queuedMs: 100, runningMs: 0, totalMs: 100, attempts: [] },
  });

/** One WatchJob call the test drives: push() a view, fail() or end() it; `cancelled` once the views let it go. */
class FakeWatch implements ServerStreamCall<jobsV1.WatchJobResponse> {
  cancelled = false;
  private readonly queue: (IteratorResult<jobsV1.WatchJobResponse> | Error)[] = [];
  private wake?: () => void;

  constructor(
    readonly afterVersion: number,
    signal: AbortSignal,
  ) {
    signal.addEventListener('abort', () => this.cancel());
  }

  push(job: jobsV1.Job) {
    this.enqueue({ value: { job }, done: false });
  }
  fail(error: Error) {
    this.enqueue(error);
  }
  cancel() {
    this.cancelled = true;
    this.enqueue({ value: undefined, done: true });
  }
  private enqueue(item: IteratorResult<jobsV1.WatchJobResponse> | Error) {
    this.queue.push(item);
    this.wake?.();
  }
  async *[Symbol.asyncIterator]() {
    for (;;) {
      while (this.queue.length === 0) await new Promise<void>((resolve) => (this.wake = resolve));
      const item = this.queue.shift()!;
      if (item instanceof Error) throw item;
      if (item.done) return;
      yield item.value;
    }
  }
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

function harness(options: { freshMs?: number; maxEntries?: number; idleMs?: number; lookups?: Counter<'result'> } = {}) {
  let now = 1_000_000;
  const watches: FakeWatch[] = [];
  const open: OpenWatch = (_jobId, _userId, afterVersion, signal) => {
    const watch = new FakeWatch(afterVersion, signal);
    watches.push(watch);
    return watch;
  };
  const views = new QueuedJobViews(open, { freshMs: 2_000, now: () => now, ...options });
  return {
    views,
    watches,
    advance: (ms: number) => (now += ms),
  };
}

describe('queued job views', () => {
  let close: (() => void) | undefined;
  afterEach(() => close?.());

  it('answers the owner from the view jobs answered, aged, and follows the job after its version', () => {
    const { views, watches, advance } = harness();
    close = () => views.close();
    views.answered(queued(1, 4), 'alice');
    expect(watches).toHaveLength(1);
    expect(watches[0]!.afterVersion).toBe(1);
    advance(500);
    const view = views.current('job-1', 'alice');
    expect(view?.queuePosition).toBe(4);
    // As jobs would compute it 500 ms later: time queued and total time grow.
    expect(view?.timings).toMatchObject({ queuedMs: 600, totalMs: 600, runningMs: 0 });
    // Anyone else asks jobs (which answers them 404).
    expect(views.current('job-1', 'mallory')).toBeUndefined();
    expect(views.current('job-2', 'alice')).toBeUndefined();
  });

  it('asks jobs again once the queue position is older than freshMs, and keeps following', () => {
    const { views, watches, advance } = harness({ freshMs: 2_000 });
    close = () => views.close();
    views.answered(queued(1, 4), 'alice');
    advance(2_001);
    expect(views.current('job-1', 'alice')).toBeUndefined();
    views.answered(queued(1, 2), 'alice');
    expect(views.current('job-1', 'alice')?.queuePosition).toBe(2);
    expect(watches).toHaveLength(1);
    expect(watches[0]!.cancelled).toBe(false);
  });

  it('takes a pushed change at once, and drops the view as soon as the job leaves the queue', async () => {
    const { views, watches } = harness();
    close = () => views.close();
    views.answered(queued(1, 4), 'alice');
    watches[0]!.push(queued(2, 0));
    await settle();
    expect(views.current('job-1', 'alice')?.version).toBe(2);
    watches[0]!.push(jobsV1.Job.fromPartial({ ...queued(3, 0), status: jobsV1.JobStatus.RUNNING, queuePosition: undefined }));
    await settle();
    expect(views.current('job-1', 'alice')).toBeUndefined();
    expect(views.size).toBe(0);
    expect(watches[0]!.cancelled).toBe(true);
  });

  it('never lets an answer older than a pushed change replace it', async () => {
    const { views, watches } = harness();
    close = () => views.close();
    views.answered(queued(1, 4), 'alice');
    watches[0]!.push(queued(2, 3));
    await settle();
    views.answered(queued(1, 9), 'alice');
    expect(views.current('job-1', 'alice')).toMatchObject({ version: 2, queuePosition: 3 });
  });

  it('drops the view when its watch fails, and follows again on the next answer', async () => {
    const { views, watches } = harness();
    close = () => views.close();
    views.answered(queued(1, 4), 'alice');
    watches[0]!.fail(new UnavailableError('jobs restarting'));
    await settle();
    expect(views.current('job-1', 'alice')).toBeUndefined();
    views.answered(queued(1, 4), 'alice');
    expect(watches).toHaveLength(2);
    expect(views.current('job-1', 'alice')?.queuePosition).toBe(4);
  });

  it('lets go of an ended job, a job jobs refused, and a job nobody reads', () => {
    const { views, watches, advance } = harness({ idleMs: 30_000 });
    close = () => views.close();
    views.answered(queued(1, 4), 'alice');
    views.answered(jobsV1.Job.fromPartial({ ...queued(2, 0), status: jobsV1.JobStatus.CANCELLED }), 'alice');
    expect(views.current('job-1', 'alice')).toBeUndefined();
    expect(watches[0]!.cancelled).toBe(true);

    views.answered(queued(1, 4), 'alice');
    views.forget('job-1');
    expect(views.size).toBe(0);
    expect(watches[1]!.cancelled).toBe(true);

    views.answered(queued(1, 4), 'alice');
    advance(30_001);
    (views as unknown as { letGoIdle(): void }).letGoIdle();
    expect(views.size).toBe(0);
    expect(watches[2]!.cancelled).toBe(true);
  });

  it('counts each read it answered (hit) and each it left to jobs (miss)', async () => {
    const lookups = new Counter({
      name: 'test_queued_views',
      help: 'test',
      labelNames: ['result'] as const,
      registers: [createMetricsRegistry('test')],
    });
    const { views, advance } = harness({ lookups });
    close = () => views.close();
    const count = async (result: string) => (await lookups.get()).values.find((value) => value.labels.result === result)?.value ?? 0;
    expect(views.current('job-1', 'alice')).toBeUndefined(); // not followed yet
    views.answered(queued(1, 4), 'alice');
    expect(views.current('job-1', 'alice')).toBeDefined();
    expect(views.current('job-1', 'mallory')).toBeUndefined(); // not theirs
    advance(2_001);
    expect(views.current('job-1', 'alice')).toBeUndefined(); // too old
    expect([await count('hit'), await count('miss')]).toEqual([1, 3]);
  });

  it('follows at most maxEntries jobs, and none when freshMs is 0', () => {
    const bounded = harness({ maxEntries: 1 });
    bounded.views.answered(queued(1, 4), 'alice');
    bounded.views.answered(jobsV1.Job.fromPartial({ ...queued(1, 5), id: 'job-2' }), 'alice');
    expect(bounded.views.size).toBe(1);
    expect(bounded.views.current('job-2', 'alice')).toBeUndefined();
    bounded.views.close();
    expect(bounded.watches.every((watch) => watch.cancelled)).toBe(true);

    const off = harness({ freshMs: 0 });
    off.views.answered(queued(1, 4), 'alice');
    expect(off.watches).toHaveLength(0);
    expect(off.views.current('job-1', 'alice')).toBeUndefined();
    off.views.close();
  });
});
