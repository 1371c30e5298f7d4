import { AppError, ErrorCode, UnavailableError, isTransientError } from '@atelier/errors';

export interface MicroBatcherOptions {
  /** Requests per batch at most. */
  maxBatch: number;
  /** Batches running at once at most; more requests wait and leave together. */
  maxConcurrent: number;
  /**
   * Requests waiting for a batch at most (default 10 000): beyond, a call is refused at once with
   * UNAVAILABLE instead of joining a queue that only grows while the database is slow.
   */
  maxQueued?: number;
}

interface Entry<Request, Result> {
  request: Request;
  signal: AbortSignal | undefined;
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
}

/** Why a queued request was dropped before its batch ran: its caller gave up or ran out of time. */
function expired(signal: AbortSignal): AppError {
  const reason = signal.reason as { name?: string } | undefined;
  return reason?.name === 'TimeoutError'
    ? new AppError(ErrorCode.DEADLINE_EXCEEDED, 'the call ran out of time before its work started', { reason: 'DEADLINE_EXCEEDED' })
    : new AppError(ErrorCode.CANCELLED, 'the caller gave up before its work started', { reason: 'CANCELLED' });
}

/**
 * Coalesces concurrent calls into batches: a call made while fewer than maxConcurrent batches
 * are running goes out at the end of the event loop's current turn (setImmediate), with every
 * call made in that turn, so a lone call waits for nothing; calls made while the database is busy
 * queue up and leave together as the next batch. Under load one statement then does the work of
 * many round trips (group commit, in the app).
 *
 * The end of the turn, not the end of the current microtask queue: the calls one socket read
 * brings (a burst of gRPC requests, the answers of a batch upstream) each start in a callback of
 * their own, so a flush after the first callback's microtasks sent the first call alone, the
 * second alone in the other slot, and left the rest for a third batch. Measured on CreateJob
 * image.stylize at 32 callers (bench/README.md, 2026-12-05 evening): about half the CPU per
 * create, the services and Postgres together (fewer, larger statements and look-ups), and no later
 * start for a lone job.
 * A call whose signal aborted (its caller's deadline passed, or it gave up) while it waited is
 * dropped, never run: a claim must not commit for a worker that stopped waiting for it.
 */
export class MicroBatcher<Request, Result> {
  private readonly queue: Entry<Request, Result>[] = [];
  private running = 0;
  private scheduled = false;

  constructor(
    /** Must answer one result per request, in order. */
    private readonly runBatch: (requests: Request[]) => Promise<Result[]>,
    private readonly options: MicroBatcherOptions,
  ) {}

  /** Queues a request; `signal` is the caller's (a gRPC call's deadline or cancellation). */
  submit(request: Request, signal?: AbortSignal): Promise<Result> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(expired(signal));
      if (this.queue.length >= (this.options.maxQueued ?? 10_000)) {
        return reject(
          new UnavailableError(`too many calls waiting (${this.queue.length}); try again shortly`, {
            reason: 'OVERLOADED',
            retryAfterSeconds: 1,
          }),
        );
      }
      this.queue.push({ request, signal, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.flush();
        });
      }
    });
  }

  private flush(): void {
    while (this.running < this.options.maxConcurrent && this.queue.length > 0) {
      const batch: Entry<Request, Result>[] = [];
      while (batch.length < this.options.maxBatch && this.queue.length > 0) {
        const entry = this.queue.shift()!;
        if (entry.signal?.aborted) entry.reject(expired(entry.signal));
        else batch.push(entry);
      }
      if (batch.length === 0) continue;
      this.running += 1;
      this.runBatch(batch.map((entry) => entry.request))
        .then(
          (results): void => batch.forEach((entry, i) => entry.resolve(results[i]!)),
          async (error: unknown): Promise<void> => {
            // A database (or peer) that is away fails them all alike: no use trying each alone.
            if (batch.length === 1 || isTransientError(error)) return batch.forEach((entry) => entry.reject(error));
            // One bad request must not fail its neighbours: retry them one by one.
            await Promise.all(
              batch.map(async (entry) => {
                if (entry.signal?.aborted) return entry.reject(expired(entry.signal));
                await this.runBatch([entry.request]).then(
                  (results) => entry.resolve(results[0]!),
                  (alone: unknown) => entry.reject(alone),
                );
              }),
            );
          },
        )
        .finally(() => {
          this.running -= 1;
          this.flush();
        });
    }
  }
}
