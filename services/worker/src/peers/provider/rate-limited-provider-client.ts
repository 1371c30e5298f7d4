import type { ProviderClient } from './provider-client.js';
import { ProviderFailure } from './provider-failure.js';
import type { ProviderLimiter } from './provider-permits.js';

/** A best-effort cancel waits this long at most for its permit, then goes anyway (it saves money). */
const CANCEL_PERMIT_WAIT_MS = 5_000;

/**
 * A ProviderClient whose calls to the vendor's API (submit, poll, cancel) each take a permit of
 * the provider's request-rate cap shared by every pod first, and whose vendor 429s are reported,
 * so every pod waits out the Retry-After (docs/budgets-and-limits.md). The 429 itself is still
 * thrown: the attempt retries the call after the Retry-After (domain/attempt-retry.ts), with the
 * same idempotency key. Output downloads are not metered: they come from the vendor's file
 * host, not its API.
 */
export function rateLimitedProviderClient(inner: ProviderClient, limiter: ProviderLimiter): ProviderClient {
  const reported = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      if (error instanceof ProviderFailure && error.code === 'PROVIDER_RATE_LIMITED') limiter.throttled(error.retryAfterMs);
      throw error;
    }
  };
  return {
    async submit(request, idempotencyKey, signal) {
      await limiter.acquire(signal);
      return reported(() => inner.submit(request, idempotencyKey, signal));
    },
    async get(predictionId, signal, echoes) {
      await limiter.acquire(signal);
      return reported(() => inner.get(predictionId, signal, echoes));
    },
    async cancel(predictionId) {
      await limiter.acquire(AbortSignal.timeout(CANCEL_PERMIT_WAIT_MS)).catch(() => {});
      return reported(() => inner.cancel(predictionId));
    },
    download: (url, signal) => inner.download(url, signal),
  };
}
