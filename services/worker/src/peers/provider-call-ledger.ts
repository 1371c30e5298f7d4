import { enumWords, jobsUsageV1 } from '@atelier/contracts';
import { MicroBatcher } from '@atelier/batching';
import { isTransientError } from '@atelier/errors';
import type { PromiseClient } from '@atelier/grpc';
import { retryWithBackoff } from '@atelier/lifecycle';
import type { Logger } from '@atelier/logging';
import type { Counter } from '@atelier/metrics';
import type { ProviderClient } from './provider/provider-client.js';
import { recordingProviderClient, type ProviderCallContext, type ProviderCallSink } from './provider/recording-provider-client.js';

export interface ProviderCallLedgerOptions {
  usage: Pick<PromiseClient<jobsUsageV1.ProviderUsageServiceClient>, 'recordProviderCalls'>;
  logger: Logger;
  /** atelier_provider_calls_total{provider,kind,outcome}. */
  calls?: Counter<'provider' | 'kind' | 'outcome'>;
  /**
   * How many times a batch jobs could not take is sent (default: until it is written, or the
   * ledger stops — flushAll's grace at shutdown). Money was paid: an outage of jobs or its
   * database, however long, must not cost the ledger a call.
   */
  maxAttempts?: number;
}

const KINDS = enumWords(jobsUsageV1.ProviderCallKind);
const OUTCOMES = enumWords(jobsUsageV1.ProviderCallOutcome);

/**
 * The worker's side of the usage ledger: the calls recordingProviderClient reports, sent to jobs
 * (RecordProviderCalls) in batches — a lone call goes at once, calls made meanwhile leave together —
 * and sent again with backoff while jobs cannot take them (the write is idempotent per call).
 * flush(jobId) waits for every call of the job recorded so far: the runner calls it before the
 * job's terminal execution call, so a finished job's ledger is complete.
 */
export class ProviderCallLedger implements ProviderCallSink {
  private readonly batcher: MicroBatcher<jobsUsageV1.ProviderCallInput, undefined>;
  private readonly pending = new Map<string, Set<Promise<void>>>();
  /** Aborted when a shutdown's grace is over: the retries of unwritten calls end (logged). */
  private readonly stopping = new AbortController();

  constructor(private readonly options: ProviderCallLedgerOptions) {
    this.batcher = new MicroBatcher<jobsUsageV1.ProviderCallInput, undefined>(
      async (calls) => {
        await this.send(calls);
        return calls.map(() => undefined);
      },
      { maxBatch: 200, maxConcurrent: 2, maxQueued: 50_000 },
    );
  }

  /** The client that records each call it makes for this job, with this credential, to this ledger. */
  clientFor(inner: ProviderClient, job: ProviderCallContext): ProviderClient {
    return recordingProviderClient(inner, job, this);
  }

  record(call: jobsUsageV1.ProviderCallInput): void {
    this.options.calls?.inc({
      provider: call.providerCode,
      kind: KINDS.wordOf(call.callKind) ?? 'unknown',
      outcome: OUTCOMES.wordOf(call.outcome) ?? 'unknown',
    });
    const written = this.batcher.submit(call).catch((error: unknown) => {
      this.options.logger.error({ jobId: call.jobId, err: error }, 'a provider call could not be recorded in the usage ledger');
    });
    let ofJob = this.pending.get(call.jobId);
    if (!ofJob) this.pending.set(call.jobId, (ofJob = new Set()));
    ofJob.add(written);
    void written.finally(() => {
      ofJob.delete(written);
      if (ofJob.size === 0 && this.pending.get(call.jobId) === ofJob) this.pending.delete(call.jobId);
    });
  }

  /** Resolves once every call of the job recorded so far is written (or given up). */
  async flush(jobId: string): Promise<void> {
    const ofJob = this.pending.get(jobId);
    if (ofJob) await Promise.all([...ofJob]);
  }

  /**
   * At shutdown: waits for every call recorded so far, at most `graceMs`; what jobs has not taken
   * by then is given up (logged per job). Only then can a call be lost: a process stopping while
   * jobs is away.
   */
  async flushAll(graceMs: number): Promise<void> {
    const timer = setTimeout(() => this.stopping.abort(new Error('the worker is stopping')), graceMs);
    try {
      await Promise.all([...this.pending.values()].flatMap((set) => [...set]));
    } finally {
      clearTimeout(timer);
    }
  }

  private async send(calls: jobsUsageV1.ProviderCallInput[]): Promise<void> {
    const { unknownJobIds } = await retryWithBackoff(() => this.options.usage.recordProviderCalls({ calls }), {
      isTransient: isTransientError,
      backoff: { baseMs: 250, maxMs: 15_000 },
      maxAttempts: this.options.maxAttempts,
      signal: this.stopping.signal,
      onRetry: (error, attempt, delayMs) =>
        this.options.logger.warn({ err: error, attempt, delayMs, calls: calls.length }, 'recording provider calls failed; trying again'),
    });
    if (unknownJobIds.length > 0) {
      this.options.logger.warn({ jobIds: unknownJobIds }, 'provider calls recorded for jobs that jobs no longer has');
    }
  }
}

/** What the executors, the runner and the cancel consumer need of the ledger. */
export type ProviderCallRecording = Pick<ProviderCallLedger, 'clientFor' | 'flush'>;
