import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { jobsExecutionV1 } from '@atelier/contracts';
import { createLogger } from '@atelier/logging';
import { AttemptClock, type ClockedAttempt, type StopCause } from './attempt-clock.js';

const { HeartbeatDirective, StopReason } = jobsExecutionV1;
const logger = createLogger({ service: 'clock-test', level: 'silent' });

/** The jobs service's Heartbeats, faked: records each call and answers from a script. */
function fakeJobs(answer: (beat: jobsExecutionV1.HeartbeatRequest) => jobsExecutionV1.HeartbeatResponse | 'fail' = () => continueBeat()) {
  const calls: jobsExecutionV1.HeartbeatRequest[][] = [];
  return {
    calls,
    heartbeats: async (beats: jobsExecutionV1.HeartbeatRequest[]) => {
      calls.push(beats);
      const answers = beats.map(answer);
      if (answers.includes('fail')) throw new Error('jobs unreachable');
      return answers as jobsExecutionV1.HeartbeatResponse[];
    },
  };
}
const continueBeat = (): jobsExecutionV1.HeartbeatResponse => ({
  directive: HeartbeatDirective.CONTINUE,
  stopReason: StopReason.UNSPECIFIED,
  leaseExpiresAt: undefined,
});

function attempt(jobId: string, overrides: Partial<ClockedAttempt> = {}) {
  const seen: { stops: StopCause[]; timeouts: number } = { stops: [], timeouts: 0 };
  const clocked: ClockedAttempt = {
    jobId,
    deadline: performance.now() + 60_000,
    heartbeatIntervalMs: 1_000,
    progress: () => 10,
    onStop: (cause) => seen.stops.push(cause),
    onTimeout: () => (seen.timeouts += 1),
    ...overrides,
  };
  return { clocked, seen };
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('attempt clock - deadlines and heartbeats of all attempts on one timer', () => {
  it('beats for every attempt that is due in one call, each at its own interval', async () => {
    const jobs = fakeJobs();
    const clock = new AttemptClock({ workerId: 'w', heartbeats: jobs.heartbeats, logger });
    const a = attempt('a');
    const b = attempt('b');
    const slow = attempt('slow', { heartbeatIntervalMs: 5_000 });
    [a, b, slow].forEach(({ clocked }) => clock.add(clocked));
    await vi.advanceTimersByTimeAsync(1_050);
    expect(jobs.calls).toEqual([
      [
        { jobId: 'a', workerId: 'w', progress: 10 },
        { jobId: 'b', workerId: 'w', progress: 10 },
      ],
    ]);
    await vi.advanceTimersByTimeAsync(4_000);
    expect(jobs.calls.flat().filter((beat) => beat.jobId === 'slow')).toHaveLength(1);
    expect(jobs.calls.flat().filter((beat) => beat.jobId === 'a')).toHaveLength(5);
    clock.stop();
  });

  it('stops an attempt the jobs service says STOP for, once, and beats no more for it', async () => {
    const jobs = fakeJobs((beat) =>
      beat.jobId === 'cancelled'
        ? { directive: HeartbeatDirective.STOP, stopReason: StopReason.CANCELLED, leaseExpiresAt: undefined }
        : continueBeat(),
    );
    const clock = new AttemptClock({ workerId: 'w', heartbeats: jobs.heartbeats, logger });
    const cancelled = attempt('cancelled');
    const alive = attempt('alive');
    clock.add(cancelled.clocked);
    clock.add(alive.clocked);
    await vi.advanceTimersByTimeAsync(3_100);
    expect(cancelled.seen.stops).toEqual(['cancelled']);
    expect(alive.seen.stops).toEqual([]);
    expect(jobs.calls.flat().filter((beat) => beat.jobId === 'cancelled')).toHaveLength(1);
    clock.stop();
  });

  it('ends an attempt past its deadline within a tick, and forgets attempts that ended', async () => {
    const jobs = fakeJobs();
    const clock = new AttemptClock({ workerId: 'w', heartbeats: jobs.heartbeats, logger });
    const late = attempt('late', { deadline: performance.now() + 500 });
    const done = attempt('done');
    clock.add(late.clocked);
    const remove = clock.add(done.clocked);
    remove();
    await vi.advanceTimersByTimeAsync(450);
    expect(late.seen.timeouts).toBe(0);
    await vi.advanceTimersByTimeAsync(200);
    expect(late.seen.timeouts).toBe(1);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(late.seen.timeouts).toBe(1);
    expect(jobs.calls.flat()).toEqual([]); // neither the ended nor the removed attempt beats
    clock.stop();
  });

  it('tries a failed heartbeat again one interval later, not at every tick', async () => {
    let failing = true;
    const jobs = fakeJobs(() => (failing ? 'fail' : continueBeat()));
    const clock = new AttemptClock({ workerId: 'w', heartbeats: jobs.heartbeats, logger });
    const { clocked, seen } = attempt('a');
    clock.add(clocked);
    await vi.advanceTimersByTimeAsync(2_500);
    expect(jobs.calls).toHaveLength(2);
    failing = false;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(jobs.calls).toHaveLength(3);
    expect(seen.stops).toEqual([]);
    clock.stop();
  });
});
