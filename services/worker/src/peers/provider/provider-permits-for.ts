import type { jobsDispatchGatesV1 } from '@atelier/contracts';
import type { PromiseClient } from '@atelier/grpc';
import type { Logger } from '@atelier/logging';
import type { WorkerMetrics } from '../../worker-metrics.js';
import { ProviderPermits, type ProviderLimiter } from './provider-permits.js';

/** A provider's limiter with the worker's metrics: permit waits observed, 429s counted. */
export function providerPermitsFor(options: {
  gates: PromiseClient<jobsDispatchGatesV1.ProviderDispatchServiceClient>;
  providerCode: string;
  workerId: string;
  logger: Logger;
  metrics: WorkerMetrics;
}): ProviderLimiter {
  const { providerCode, metrics } = options;
  const permits = new ProviderPermits({
    ...options,
    observeWait: (seconds) => metrics.permitWait.observe({ provider: providerCode }, seconds),
  });
  return {
    acquire: (signal) => permits.acquire(signal),
    throttled(retryAfterMs) {
      metrics.providerThrottles.inc({ provider: providerCode });
      permits.throttled(retryAfterMs);
    },
  };
}
