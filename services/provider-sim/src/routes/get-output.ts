import type { FastifyReply } from 'fastify';
import { ApiError, flakyRead, predictionNotFound } from '../domain/api-error.js';
import { takeFlakyRead } from '../domain/prediction.js';
import type { ProviderSimContext } from '../provider-sim-context.js';
import type { PredictionRoute } from './get-prediction.js';

/**
 * `GET /v1/predictions/:id/output`: the output bytes. No auth, like a vendor's CDN URL: the
 * unguessable prediction id is the capability.
 */
export function getOutput(context: ProviderSimContext) {
  return async (request: PredictionRoute, reply: FastifyReply) => {
    context.calls.count('output_fetch', request.params.id);
    const prediction = context.store.get(request.params.id);
    if (!prediction) throw predictionNotFound(request.params.id);
    if (prediction.status !== 'succeeded' || !prediction.output) {
      throw new ApiError(404, 'not_found', `prediction ${prediction.id} has no output: its status is ${prediction.status}`);
    }
    if (takeFlakyRead(prediction, 'downloads')) throw flakyRead(`the output of prediction ${prediction.id}`);
    return reply
      .header('content-type', prediction.output.contentType)
      .header('cache-control', 'private, max-age=3600')
      .send(prediction.output.bytes);
  };
}
