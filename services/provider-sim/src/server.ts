import type { AddressInfo } from 'node:net';
import Fastify, { LogController, type FastifyError } from 'fastify';
import type { Logger } from '@atelier/logging';
import { createMetricsRegistry } from '@atelier/metrics';
import { ApiError } from './domain/api-error.js';
import { INPUT_FETCH_TIMEOUT_MS } from './input-image.js';
import { PredictionStore } from './prediction-store.js';
import type { ProviderSimContext } from './provider-sim-context.js';
import { cancelPrediction } from './routes/cancel-prediction.js';
import { getOutput } from './routes/get-output.js';
import { getPrediction } from './routes/get-prediction.js';
import { getStats } from './routes/get-stats.js';
import { listPredictions } from './routes/list-predictions.js';
import { submitPrediction } from './routes/submit-prediction.js';
import type { SimulationKind } from './domain/simulation-directives.js';
import { SubmissionMeter } from './submission-meter.js';
import { CallMeter } from './call-meter.js';
import { KeyUsage } from './key-usage.js';
import { OpenPredictions } from './open-predictions.js';

export interface ProviderSimOptions {
  logger: Logger;
  /** PROVIDER_SIM_API_KEYS, or where to read the keys accepted now (a file rotated under it); undefined accepts any non-empty bearer token. */
  apiKeys?: readonly string[] | (() => readonly string[] | undefined);
  /** PROVIDER_SIM_LATENCY_MS (default 1500). */
  latencyMs?: number;
  /** PROVIDER_SIM_FAILURE_RATE, 0..1 (default 0). */
  failureRate?: number;
  /** PROVIDER_SIM_FAILURE_KIND (default prediction_failed). */
  failureKind?: SimulationKind;
  /** PROVIDER_SIM_MAX_PREDICTIONS (default 2000). */
  maxPredictions?: number;
  /** PROVIDER_SIM_MAX_OPEN_PREDICTIONS: an account's concurrent-prediction cap (429 beyond it); default none. */
  maxOpenPredictions?: number;
  /** PROVIDER_SIM_RETRY_AFTER_SECONDS: the Retry-After of its 429s (default 1). */
  retryAfterSeconds?: number;
  /** PUBLIC_URL; default `http://127.0.0.1:<bound port>`. */
  publicUrl?: string;
  /** For tests: a shorter input fetch timeout, a deterministic random source. */
  inputTimeoutMs?: number;
  random?: () => number;
}

// Fastify's own refusals (bad JSON, wrong content type, too large) in the API's error shape.
const CLIENT_ERROR_CODES: Readonly<Record<number, string>> = {
  413: 'payload_too_large',
  415: 'unsupported_media_type',
};

/**
 * The provider simulator as a Fastify app (not yet listening) with the state tests inspect.
 * provider-sim-app.ts listens on HTTP_PORT; tests listen on port 0.
 */
export function buildProviderSim(options: ProviderSimOptions) {
  // Request lines are off: a worker polls every few hundred ms, so per-request logs would drown
  // the lines that matter (predictions created, ended, cancelled; failures).
  const app = Fastify({ loggerInstance: options.logger, logController: new LogController({ disableRequestLogging: true }) });
  const maxPredictions = options.maxPredictions ?? 2_000;
  const store = new PredictionStore(maxPredictions);
  const metrics = createMetricsRegistry('provider-sim');
  const meter = new SubmissionMeter(metrics);
  const keys = new KeyUsage();
  const configuredUrl = options.publicUrl?.replace(/\/+$/, '');
  const context: ProviderSimContext = {
    store,
    meter,
    calls: new CallMeter(maxPredictions, metrics),
    openPredictions: new OpenPredictions(),
    maxOpenPredictions: options.maxOpenPredictions,
    retryAfterSeconds: options.retryAfterSeconds ?? 1,
    logger: options.logger,
    apiKeys: typeof options.apiKeys === 'function' ? options.apiKeys : () => options.apiKeys as readonly string[] | undefined,
    keys,
    latencyMs: options.latencyMs ?? 1_500,
    failureRate: options.failureRate ?? 0,
    failureKind: options.failureKind ?? 'prediction_failed',
    inputTimeoutMs: options.inputTimeoutMs ?? INPUT_FETCH_TIMEOUT_MS,
    random: options.random ?? Math.random,
    now: () => new Date(),
    publicUrl: () => configuredUrl ?? `http://127.0.0.1:${boundPort(app.server.address())}`,
  };

  app.post('/v1/predictions', submitPrediction(context));
  app.get('/v1/predictions', listPredictions(context));
  app.get('/v1/predictions/:id', getPrediction(context));
  app.post('/v1/predictions/:id/cancel', cancelPrediction(context));
  app.get('/v1/predictions/:id/output', getOutput(context));
  app.get('/v1/stats', getStats(context));
  app.get('/v1/stats/keys', async () => ({ requests: keys.byFingerprint() }));
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/metrics', async (_request, reply) => {
    reply.header('content-type', metrics.contentType);
    return metrics.metrics();
  });

  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ error: { code: 'not_found', message: `no route ${request.method} ${request.url.split('?')[0]}` } }),
  );
  app.setErrorHandler((error: FastifyError | ApiError, request, reply) => {
    if (error instanceof ApiError) return reply.code(error.statusCode).headers(error.headers).send(error.toBody());
    const statusCode = error.statusCode ?? 500;
    if (statusCode < 500) {
      const code = CLIENT_ERROR_CODES[statusCode] ?? 'invalid_request';
      return reply.code(statusCode).send({ error: { code, message: `body: ${error.message}` } });
    }
    request.log.error({ err: error, route: request.routeOptions.url }, 'request failed');
    return reply.code(500).send({ error: { code: 'internal', message: 'provider-sim failed to handle the request; see its log' } });
  });

  // Running predictions hold timers and fetches, not connections: stop them so close is prompt.
  app.addHook('onClose', async () => {
    for (const prediction of store.unfinished()) prediction.abort.abort();
  });

  return { app, store, meter };
}

export type ProviderSim = ReturnType<typeof buildProviderSim>;

function boundPort(address: string | AddressInfo | null): number {
  return typeof address === 'object' && address !== null ? address.port : 0;
}
