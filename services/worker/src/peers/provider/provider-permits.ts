import type { jobsDispatchGatesV1 } from '@atelier/contracts';
import type { PromiseClient } from '@atelier/grpc';
import type { Logger } from '@atelier/logging';

/** What rateLimitedProviderClient needs of a provider's shared request-rate cap. */
export interface ProviderLimiter {
  /** Resolves when one call may go to the vendor; rejects with the signal's reason if it aborts first. */
  acquire(signal: AbortSignal): Promise<void>;
  /** The vendor answered 429: every pod waits out its Retry-After (best effort, never throws). */
  throttled(retryAfterMs: number | undefined): void;
}

export interface ProviderPermitsOptions {
  gates: PromiseClient<jobsDispatchGatesV1.ProviderDispatchServiceClient>;
  providerCode: string;
  workerId: string;
  logger: Logger;
  /** Told how long each call waited for its permit, in seconds. */
  observeWait?: (seconds: number) => void;
}

/** Most permits asked for in one call: the calls waiting here now, up to this. */
const MAX_BATCH = 20;
/** While jobs cannot be asked, the waiters ask again after this long. */
const UNREACHABLE_RETRY_MS = 1_000;
/** The longest pause between two asks, whatever jobs answered (a raised cap is seen within it). */
const MAX_PAUSE_MS = 5_000;

interface Waiter {
  resolve: () => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal;
  since: number;
}

/**
 * One provider's permits for this worker, drawn from the bucket every pod shares (jobs'
 * AcquireProviderPermits). The calls waiting at one moment are asked for together (one RPC for up
 * to MAX_BATCH of them), granted in order of arrival. With no cap on the provider, jobs says how
 * long calls may go unasked (unmetered_for_ms), so an uncapped provider costs about one RPC a
 * second per worker, not one per call.
 */
export class ProviderPermits implements ProviderLimiter {
  private readonly waiters: Waiter[] = [];
  private pumping = false;
  private unmeteredUntil = 0;
  /** This worker's own view of a 429 it saw, until jobs has heard of it. */
  private pausedUntil = 0;

  constructor(private readonly options: ProviderPermitsOptions) {}

  acquire(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    const now = Date.now();
    if (now < this.unmeteredUntil && now >= this.pausedUntil) {
      this.options.observeWait?.(0);
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, signal, since: performance.now() };
      const onAbort = () => {
        const index = this.waiters.indexOf(waiter);
        if (index !== -1) this.waiters.splice(index, 1);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      waiter.resolve = () => {
        signal.removeEventListener('abort', onAbort);
        this.options.observeWait?.((performance.now() - waiter.since) / 1000);
        resolve();
      };
      this.waiters.push(waiter);
      // After the current turn: the calls made in it are asked for together.
      queueMicrotask(() => void this.pump());
    });
  }

  throttled(retryAfterMs: number | undefined): void {
    const pauseMs = Math.max(1, retryAfterMs ?? 1_000);
    this.unmeteredUntil = 0;
    this.pausedUntil = Math.max(this.pausedUntil, Date.now() + pauseMs);
    const { gates, providerCode, workerId, logger } = this.options;
    gates
      .reportProviderThrottle({ providerCode, retryAfterMs: Math.min(300_000, Math.round(retryAfterMs ?? 0)), workerId })
      .catch((error: unknown) => {
        logger.warn(
          { err: error, provider: providerCode },
          'the vendor throttle could not be reported to jobs; other workers learn it from the vendor',
        );
      });
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.waiters.length > 0) {
        const localPause = this.pausedUntil - Date.now();
        if (localPause > 0) {
          await sleep(Math.min(localPause, MAX_PAUSE_MS));
          continue;
        }
        if (Date.now() < this.unmeteredUntil) {
          for (const waiter of this.waiters.splice(0)) waiter.resolve();
          break;
        }
        const wanted = Math.min(this.waiters.length, MAX_BATCH);
        let answer: jobsDispatchGatesV1.AcquireProviderPermitsResponse;
        try {
          answer = await this.options.gates.acquireProviderPermits({
            providerCode: this.options.providerCode,
            wanted,
            workerId: this.options.workerId,
          });
        } catch (error) {
          this.options.logger.warn(
            { err: error, provider: this.options.providerCode },
            'provider permits could not be asked for; asking again',
          );
          await sleep(UNREACHABLE_RETRY_MS);
          continue;
        }
        if (answer.unmeteredForMs > 0) this.unmeteredUntil = Date.now() + answer.unmeteredForMs;
        for (const waiter of this.waiters.splice(0, answer.granted)) waiter.resolve();
        if (this.waiters.length > 0 && answer.granted < wanted) {
          await sleep(Math.min(MAX_PAUSE_MS, Math.max(10, answer.retryAfterMs)));
        }
      }
    } finally {
      this.pumping = false;
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
