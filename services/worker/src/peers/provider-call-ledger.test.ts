import { describe, expect, it } from 'vitest';
import { jobsUsageV1 } from '@atelier/contracts';
import { UnavailableError } from '@atelier/errors';
import { createLogger } from '@atelier/logging';
import { ProviderCallLedger } from './provider-call-ledger.js';

const logger = createLogger({ service: 'ledger-test', level: 'silent' });
const JOB = '019a0000-0000-7000-8000-00000000bbbb';
const call = (jobId = JOB) => jobsUsageV1.ProviderCallInput.fromPartial({ jobId, requestKey: `${Math.random()}`, callKind: 2, outcome: 1 });

describe('provider call ledger - batched, retried, flushed per job', () => {
  it('sends a call again while jobs is unavailable, and flush(job) waits until it is written', async () => {
    const sent: jobsUsageV1.ProviderCallInput[][] = [];
    let refusals = 2;
    const ledger = new ProviderCallLedger({
      logger,
      usage: {
        recordProviderCalls: async ({ calls }) => {
          if (refusals-- > 0) throw new UnavailableError('jobs restarting');
          sent.push(calls);
          return { recorded: calls.length, unknownJobIds: [] };
        },
      },
    });
    ledger.record(call());
    ledger.record(call());
    await ledger.flush(JOB);
    expect(sent.flat()).toHaveLength(2);
    await ledger.flush('019a0000-0000-7000-8000-00000000cccc');
  });

  it('keeps sending while jobs is away, however long, and gives up only when a shutdown grace ends', async () => {
    let attempts = 0;
    const ledger = new ProviderCallLedger({
      logger,
      usage: {
        recordProviderCalls: async () => {
          attempts += 1;
          throw new UnavailableError('jobs down');
        },
      },
    });
    ledger.record(call());
    let flushed = false;
    void ledger.flush(JOB).then(() => (flushed = true));
    // Backoff from 250 ms: by 2 s several attempts were made, and the call is still held.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(attempts).toBeGreaterThanOrEqual(3);
    expect(flushed).toBe(false);
    await ledger.flushAll(100);
    expect(flushed).toBe(true);
  });

  it('gives a batch up after its attempts, logged, without failing flush', async () => {
    const ledger = new ProviderCallLedger({
      logger,
      maxAttempts: 2,
      usage: {
        recordProviderCalls: async () => {
          throw new UnavailableError('jobs down');
        },
      },
    });
    ledger.record(call());
    await expect(ledger.flush(JOB)).resolves.toBeUndefined();
  });
});
