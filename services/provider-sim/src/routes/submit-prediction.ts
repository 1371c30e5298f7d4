import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../domain/api-error.js';
import { accountOf, requireApiKey } from './auth.js';
import { newPrediction } from '../domain/prediction.js';
import { runPrediction } from '../prediction-runner.js';
import { toPredictionJson } from './prediction-view.js';
import type { ProviderSimContext } from '../provider-sim-context.js';
import { parseIdempotencyKey, parseSubmitRequest } from '../domain/request-validation.js';
import {
  chooseSimulation,
  isRefusalKind,
  jobOfIdempotencyKey,
  parseSimulationDirectives,
  type RefusalKind,
} from '../domain/simulation-directives.js';

const REFUSALS: Readonly<Record<RefusalKind, (retryAfterSeconds: number) => ApiError>> = {
  unavailable: () => new ApiError(503, 'unavailable', 'the provider is temporarily unavailable (simulated); retry later'),
  rate_limit: (seconds) =>
    new ApiError(429, 'rate_limited', `too many requests (simulated); retry after ${seconds} second(s)`, {
      'Retry-After': String(seconds),
    }),
  credentials: () => new ApiError(401, 'invalid_credentials', 'the API key was refused (simulated credentials failure)'),
};

/**
 * `POST /v1/predictions`. A known Idempotency-Key answers 200 with its prediction (no new work,
 * no charge); otherwise the simulation may refuse the POST (503/429/401, nothing created), or a
 * prediction is created (201) and run in the background. Everything up to the creation is
 * synchronous, so two concurrent POSTs with one key can never both create.
 */
export function submitPrediction(context: ProviderSimContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const idempotencyKey = parseIdempotencyKey(request.headers['idempotency-key']);
    context.meter.countRequest(idempotencyKey);
    context.calls.countSubmit(idempotencyKey);
    const key = requireApiKey(request.headers.authorization, context.apiKeys());
    context.keys.count(key);
    const account = accountOf(key);
    const submit = parseSubmitRequest(request.body);
    const directives = parseSimulationDirectives(submit.input.prompt);

    const existing = idempotencyKey === null ? undefined : context.store.findByIdempotencyKey(idempotencyKey);
    if (existing) context.calls.submitAnswered(existing.id);
    if (existing) return reply.code(200).send(toPredictionJson(existing, context.publicUrl(), context.now()));

    // Without a key every POST is a job of its own, so `#sim-once` applies to each of them.
    const firstPostOfJob = idempotencyKey === null || context.store.claimFirstPostOfJob(jobOfIdempotencyKey(idempotencyKey));
    const simulation = chooseSimulation({
      directives,
      firstPostOfJob,
      failureRate: context.failureRate,
      failureKind: context.failureKind,
      random: context.random,
    });
    if (simulation && isRefusalKind(simulation)) {
      context.logger.info({ idempotencyKey, simulation }, 'submission refused by simulation');
      throw REFUSALS[simulation](context.retryAfterSeconds);
    }

    // A vendor caps an account's predictions running at once: one more is refused, nothing charged.
    if (context.maxOpenPredictions !== undefined && context.openPredictions.openNow(account) >= context.maxOpenPredictions) {
      context.logger.info({ idempotencyKey, maxOpen: context.maxOpenPredictions }, 'submission refused: too many open predictions');
      throw new ApiError(429, 'rate_limited', `at most ${context.maxOpenPredictions} predictions may run at once`, {
        'Retry-After': String(context.retryAfterSeconds),
      });
    }

    const prediction = newPrediction({
      id: `pred_${randomBytes(12).toString('hex')}`,
      model: submit.model,
      version: submit.version,
      idempotencyKey,
      account,
      latencyMs: directives.latencyMs ?? context.latencyMs,
      now: context.now(),
      flakyReads: directives.flakyReads,
      input: submit.input,
    });
    const evicted = context.store.add(prediction);
    context.openPredictions.opened(account, prediction);
    context.meter.countSubmission(idempotencyKey);
    context.calls.submitAnswered(prediction.id);
    context.logger.info(
      { predictionId: prediction.id, model: submit.model, style: submit.input.style, idempotencyKey, simulation, evicted: evicted.length },
      'prediction created',
    );
    // runPrediction never rejects: every failure becomes the prediction's own status.
    void runPrediction(
      prediction,
      { model: submit.model, input: submit.input, simulation },
      { logger: context.logger, now: context.now, inputTimeoutMs: context.inputTimeoutMs },
    );
    return reply.code(201).send(toPredictionJson(prediction, context.publicUrl(), context.now()));
  };
}
