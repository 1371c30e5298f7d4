import type { FastifyReply, FastifyRequest } from 'fastify';
import { encodeCursor, parseListQuery } from '../domain/list-query.js';
import { accountOf, requireApiKey } from './auth.js';
import { toPredictionJson, type PredictionJson } from './prediction-view.js';
import type { ProviderSimContext } from '../provider-sim-context.js';

/** A prediction as the list shows it: what it is and what it cost, without its input or output. */
export type ListedPredictionJson = Pick<
  PredictionJson,
  'id' | 'model' | 'version' | 'status' | 'idempotency_key' | 'created_at' | 'started_at' | 'completed_at' | 'metrics'
>;

/** Replicate's list shape: `results`, and `next` (the URL of the next page) / `previous`, null at the ends. */
export interface PredictionListJson {
  results: ListedPredictionJson[];
  next: string | null;
  previous: null;
}

/**
 * `GET /v1/predictions?created_after=&created_before=&cursor=&limit=`: the calling account's
 * predictions (the key's account, routes/auth.ts), oldest first, in pages. `created_after` is
 * included, `created_before` excluded. Only what the simulator still holds is listed: beyond
 * PROVIDER_SIM_MAX_PREDICTIONS it forgets the oldest finished ones.
 */
export function listPredictions(context: ProviderSimContext) {
  return async (request: FastifyRequest<{ Querystring: Record<string, unknown> }>, reply: FastifyReply) => {
    const account = accountOf(requireApiKey(request.headers.authorization, context.apiKeys()));
    const query = parseListQuery(request.query);
    const page = context.store.list(account, query);
    const now = context.now();
    const publicUrl = context.publicUrl();
    const results = page.predictions.map((prediction): ListedPredictionJson => {
      const { id, model, version, status, idempotency_key, created_at, started_at, completed_at, metrics } = toPredictionJson(
        prediction,
        publicUrl,
        now,
      );
      return { id, model, version, status, idempotency_key, created_at, started_at, completed_at, metrics };
    });
    let next: string | null = null;
    if (page.more) {
      const url = new URL(`${publicUrl}/v1/predictions`);
      for (const [name, value] of Object.entries(request.query)) {
        if (name !== 'cursor' && typeof value === 'string') url.searchParams.set(name, value);
      }
      url.searchParams.set('cursor', encodeCursor(page.lastSequence));
      next = url.toString();
    }
    return reply.send({ results, next, previous: null } satisfies PredictionListJson);
  };
}
