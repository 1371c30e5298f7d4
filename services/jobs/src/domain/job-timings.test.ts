import { describe, expect, it } from 'vitest';
import { jobsV1 } from '@atelier/contracts';
import { jobTimings } from './job-timings.js';

const at = (seconds: number) => new Date(Date.UTC(2026, 10, 30, 12, 0, seconds));

describe('job timings - from the transition history', () => {
  it('reports time queued, time running per attempt and in total', () => {
    const events = [
      { fromStatus: null, toStatus: 'queued', attempt: 0, errorCode: null, occurredAt: at(0) },
      { fromStatus: 'queued', toStatus: 'running', attempt: 1, errorCode: null, occurredAt: at(2) },
      { fromStatus: 'running', toStatus: 'queued', attempt: 1, errorCode: 'PROVIDER_UNAVAILABLE', occurredAt: at(5) },
      { fromStatus: 'queued', toStatus: 'running', attempt: 2, errorCode: null, occurredAt: at(9) },
      { fromStatus: 'running', toStatus: 'succeeded', attempt: 2, errorCode: null, occurredAt: at(13) },
    ];
    const timings = jobTimings(at(0), at(13), events, at(60));
    expect(timings).toMatchObject({ queuedMs: 2000, runningMs: 7000, totalMs: 13000 });
    expect(timings.attempts).toEqual([
      {
        attempt: 1,
        startedAt: at(2),
        endedAt: at(5),
        durationMs: 3000,
        outcome: jobsV1.JobStatus.QUEUED,
        errorCode: 'PROVIDER_UNAVAILABLE',
      },
      { attempt: 2, startedAt: at(9), endedAt: at(13), durationMs: 4000, outcome: jobsV1.JobStatus.SUCCEEDED, errorCode: undefined },
    ]);
  });

  it('counts a running attempt up to now, and a never-claimed job as queued until now', () => {
    const running = jobTimings(
      at(0),
      null,
      [{ fromStatus: 'queued', toStatus: 'running', attempt: 1, errorCode: null, occurredAt: at(1) }],
      at(4),
    );
    expect(running).toMatchObject({ queuedMs: 1000, runningMs: 3000, totalMs: 4000 });
    expect(running.attempts[0]).toMatchObject({ outcome: jobsV1.JobStatus.RUNNING, endedAt: undefined });
    expect(jobTimings(at(0), null, [], at(7))).toMatchObject({ queuedMs: 7000, runningMs: 0, totalMs: 7000, attempts: [] });
  });
});
