import type { jobsDispatchGatesV1 } from '@atelier/contracts';
import type { Handler } from '@atelier/grpc';
import { requireIntInRange } from '@atelier/validation';
import { acquirePermits, MAX_THROTTLE_MS, reportThrottle } from '../../db/provider-permits-sql.js';
import type { JobsContext } from '../../jobs-context.js';
import { requireWorkerId } from '../worker-id.js';
import { requireProviderCode } from './gate-fields.js';

type Service = typeof jobsDispatchGatesV1.ProviderDispatchServiceService;

/** Permits of the provider's shared request-rate bucket (db/provider-permits-sql.ts). */
export function acquireProviderPermits(context: JobsContext): Handler<Service['acquireProviderPermits']> {
  return async (request) => {
    const provider = requireProviderCode(request.providerCode);
    const wanted = requireIntInRange(request.wanted, 'wanted', 1, 100);
    requireWorkerId(request.workerId);
    const grant = await acquirePermits(context.pool, provider, wanted);
    if (grant.granted > 0) context.gateMetrics.permitsGranted.inc({ provider }, grant.granted);
    if (grant.granted < wanted) context.gateMetrics.permitsRefused.inc({ provider });
    return {
      granted: grant.granted,
      retryAfterMs: grant.retryAfterMs,
      pausedUntil: grant.pausedUntil ?? undefined,
      unmeteredForMs: grant.unmeteredForMs,
    };
  };
}

/** A vendor's 429: the provider pauses for every pod until its Retry-After. */
export function reportProviderThrottle(context: JobsContext): Handler<Service['reportProviderThrottle']> {
  return async (request) => {
    const provider = requireProviderCode(request.providerCode);
    const retryAfterMs = requireIntInRange(request.retryAfterMs, 'retry_after_ms', 0, MAX_THROTTLE_MS);
    requireWorkerId(request.workerId);
    const pausedUntil = await reportThrottle(context.pool, provider, retryAfterMs);
    context.gateMetrics.throttleReports.inc({ provider });
    context.logger.warn({ provider, retryAfterMs, pausedUntil }, 'the vendor throttles a provider: its dispatch pauses for every worker');
    return { pausedUntil };
  };
}
