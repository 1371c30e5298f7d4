import type { FastifyReply, FastifyRequest } from 'fastify';
import { flakyRead, predictionNotFound } from '../domain/api-error.js';
import { requireApiKey } from './auth.js';
import { takeFlakyRead } from '../domain/prediction.js';
import { toPredictionJson } from './prediction-view.js';
import type { ProviderSimContext } from '../provider-sim-context.js';

export type PredictionRoute = FastifyRequest<{ Params: { id: string } }>;

/** `GET /v1/predictions/:id`: the poll. Progress is computed at the moment of the read. */
export function getPrediction(context: ProviderSimContext) {
  return async (request: PredictionRoute, reply: FastifyReply) => {
    context.calls.count('poll', request.params.id);
    context.keys.count(requireApiKey(request.headers.authorization, context.apiKeys()));
    const prediction = context.store.get(request.params.id);
    if (!prediction) throw predictionNotFound(request.params.id);
    if (takeFlakyRead(prediction, 'polls')) throw flakyRead(`prediction ${prediction.id}`);
    return reply.send(toPredictionJson(prediction, context.publicUrl(), context.now()));
  };
}
