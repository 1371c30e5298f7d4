import { describe, expect, it } from 'vitest';
import { jobAttempts } from './job-attempts.js';

const at = (seconds: number) => new Date(Date.UTC(2026, 10, 30, 12, 0, seconds));

describe('job attempts - from the transition history', () => {
  it('gives each attempt its queue wait (backoff included), run time, claimer, ender and error', () => {
    const attempts = jobAttempts(
      [
        { fromStatus: null, toStatus: 'queued', attempt: 0, errorCode: null, occurredAt: at(0), actor: 'user:alice' },
        { fromStatus: 'queued', toStatus: 'running', attempt: 1, errorCode: null, occurredAt: at(2), actor: 'worker:w1' },
        {
          fromStatus: 'running',
          toStatus: 'queued',
          attempt: 1,
          errorCode: 'PROVIDER_UNAVAILABLE',
          errorClass: 'provider',
          detail: 'HTTP 503 from the vendor',
          occurredAt: at(5),
          actor: 'worker:w1',
        },
        { fromStatus: 'queued', toStatus: 'running', attempt: 2, errorCode: null, occurredAt: at(9), actor: 'worker:w2' },
        { fromStatus: 'running', toStatus: 'cancelled', attempt: 2, errorCode: null, occurredAt: at(13), actor: 'operator:ops' },
      ],
      at(60),
    );
    expect(attempts).toEqual([
      {
        attempt: 1,
        queuedAt: at(0),
        startedAt: at(2),
        endedAt: at(5),
        queuedWaitMs: 2000,
        runMs: 3000,
        outcome: 'queued',
        claimedBy: 'worker:w1',
        endedBy: 'worker:w1',
        errorCode: 'PROVIDER_UNAVAILABLE',
        errorClass: 'provider',
        errorDetail: 'HTTP 503 from the vendor',
      },
      {
        attempt: 2,
        queuedAt: at(5),
        startedAt: at(9),
        endedAt: at(13),
        queuedWaitMs: 4000,
        runMs: 4000,
        outcome: 'cancelled',
        claimedBy: 'worker:w2',
        endedBy: 'operator:ops',
        errorCode: undefined,
        errorClass: undefined,
        errorDetail: undefined,
      },
    ]);
  });

  it('counts a running attempt up to now and leaves its end open', () => {
    const [attempt] = jobAttempts(
      [
        { fromStatus: null, toStatus: 'queued', attempt: 0, errorCode: null, occurredAt: at(0) },
        { fromStatus: 'queued', toStatus: 'running', attempt: 1, errorCode: null, occurredAt: at(1) },
      ],
      at(4),
    );
    expect(attempt).toMatchObject({ queuedWaitMs: 1000, runMs: 3000, outcome: 'running', endedAt: undefined, endedBy: undefined });
  });
});
