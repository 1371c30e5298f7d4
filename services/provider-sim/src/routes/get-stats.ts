import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ProviderSimContext } from '../provider-sim-context.js';

/**
 * `GET /v1/stats`: the double-charge meter. `submissions` per Idempotency-Key above 1 means a
 * client paid twice for one job. `calls`: every call received per kind (call-meter.ts), in total,
 * per prediction and (submits) per Idempotency-Key. `open_predictions` is the concurrency a vendor
 * caps (max: the most ever open at once). No auth: tests and operators read it directly.
 */
export function getStats(context: ProviderSimContext) {
  return async (_request: FastifyRequest, reply: FastifyReply) =>
    reply.send({
      predictions_total: context.store.predictionsTotal,
      predictions_in_memory: context.store.size,
      by_key: context.meter.byKey(),
      calls: context.calls.snapshot(),
      // Open predictions now and the most ever open at once, in all and per account (a key's fingerprint).
      open_predictions: context.openPredictions.stats(),
    });
}
