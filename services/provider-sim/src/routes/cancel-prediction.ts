import type { FastifyReply } from 'fastify';
import { predictionNotFound } from '../domain/api-error.js';
import { requireApiKey } from './auth.js';
import { markCanceled } from '../domain/prediction.js';
import { toPredictionJson } from './prediction-view.js';
import type { ProviderSimContext } from '../provider-sim-context.js';
import type { PredictionRoute } from './get-prediction.js';

/**
 * `POST /v1/predictions/:id/cancel`: a running prediction becomes `canceled` and its work stops
 * (no output is ever stored); a finished one is returned unchanged, so a cancel is safe to retry.
 */
export function cancelPrediction(context: ProviderSimContext) {
  return async (request: PredictionRoute, reply: FastifyReply) => {
    context.calls.count('cancel', request.params.id);
    context.keys.count(requireApiKey(request.headers.authorization, context.apiKeys()));
    const prediction = context.store.get(request.params.id);
    if (!prediction) throw predictionNotFound(request.params.id);
    if (markCanceled(prediction, context.now())) context.logger.info({ predictionId: prediction.id }, 'prediction canceled');
    return reply.send(toPredictionJson(prediction, context.publicUrl(), context.now()));
  };
}
