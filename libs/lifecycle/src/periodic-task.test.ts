import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startPeriodicTask, type PeriodicTask } from './index.js';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

describe('lifecycle - periodic task', () => {
  const warnings: { obj: object; msg: string }[] = [];
  const logger = { warn: (obj: object, msg: string) => warnings.push({ obj, msg }) };
  let task: PeriodicTask | undefined;

  beforeEach(() => {
    vi.useFakeTimers();
    warnings.length = 0;
  });
  afterEach(async () => {
    vi.useRealTimers();
    await task?.stop();
  });

  it('runs once per interval, the first one interval after the start', async () => {
    const run = vi.fn(async () => {});
    task = startPeriodicTask({ name: 'sweeping', intervalMs: 1_000, run, logger });
    await vi.advanceTimersByTimeAsync(999);
    expect(run).toHaveBeenCalledTimes(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(run).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(run).toHaveBeenCalledTimes(3);
  });

  it('never overlaps runs: the next waits a whole interval after a slow run has ended', async () => {
    const slow = deferred();
    const run = vi.fn(() => (run.mock.calls.length === 1 ? slow.promise : Promise.resolve()));
    task = startPeriodicTask({ name: 'sweeping', intervalMs: 1_000, run, logger });
    await vi.advanceTimersByTimeAsync(5_000);
    expect(run).toHaveBeenCalledTimes(1);
    slow.resolve();
    await vi.advanceTimersByTimeAsync(999);
    expect(run).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(run).toHaveBeenCalledTimes(2);
  });

  it('logs a failed run with the task name and carries on at the next interval', async () => {
    const failure = new Error('database away');
    const run = vi.fn().mockRejectedValueOnce(failure).mockResolvedValue(undefined);
    task = startPeriodicTask({ name: 'sweeping', intervalMs: 1_000, run, logger });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(warnings).toEqual([{ obj: { err: failure, task: 'sweeping' }, msg: 'sweeping failed; it runs again at the next interval' }]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(run).toHaveBeenCalledTimes(2);
  });

  it('wakes when the task says its next work is due, never later than the interval; a failed answer waits the interval', async () => {
    const answers = [5_000, 250, 5_000, -10];
    const nextRunInMs = vi.fn(async () => {
      const next = answers.shift();
      if (next === undefined) throw new Error('database away');
      return next;
    });
    const run = vi.fn(async () => {});
    task = startPeriodicTask({ name: 'reaping', intervalMs: 1_000, run, logger, nextRunInMs });
    await vi.advanceTimersByTimeAsync(1_000); // asked at the start too
    expect(run).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(250); // due in 250 ms
    expect(run).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(999); // due in 5 s: capped at the interval
    expect(run).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(run).toHaveBeenCalledTimes(3);
    await vi.advanceTimersByTimeAsync(1); // already due: at once
    expect(run).toHaveBeenCalledTimes(4);
    await vi.advanceTimersByTimeAsync(900); // the answer failed: the interval
    expect(run).toHaveBeenCalledTimes(4);
    expect(warnings.map((warning) => warning.msg)).toEqual(['reaping: its next run could not be timed; it runs at the next interval']);
    await vi.advanceTimersByTimeAsync(200);
    expect(run).toHaveBeenCalledTimes(5);
  });

  it('stop waits for the run in flight, aborts its signal, and starts no other', async () => {
    const slow = deferred();
    let signal: AbortSignal | undefined;
    const run = vi.fn((given: AbortSignal) => {
      signal = given;
      return slow.promise;
    });
    task = startPeriodicTask({ name: 'sweeping', intervalMs: 1_000, run, logger });
    await vi.advanceTimersByTimeAsync(1_000);
    let stopped = false;
    const stopping = task.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(signal?.aborted).toBe(true);
    expect(stopped).toBe(false);
    slow.resolve();
    await stopping;
    await vi.advanceTimersByTimeAsync(10_000);
    expect(run).toHaveBeenCalledTimes(1);
  });

  it('stopped before its first run, never runs', async () => {
    const run = vi.fn(async () => {});
    task = startPeriodicTask({ name: 'sweeping', intervalMs: 1_000, run, logger });
    await task.stop();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(run).not.toHaveBeenCalled();
  });

  it("does not keep the process alive: its timer is unref'd", () => {
    const setTimeoutSpy = vi.spyOn(globalThis, 'setTimeout');
    task = startPeriodicTask({ name: 'sweeping', intervalMs: 1_000, run: async () => {}, logger });
    const timer = setTimeoutSpy.mock.results[0]!.value as NodeJS.Timeout;
    setTimeoutSpy.mockRestore();
    expect(timer.hasRef()).toBe(false);
  });
});
