import type { Logger } from '@atelier/logging';
import type { PredictionStore } from './prediction-store.js';
import type { SimulationKind } from './domain/simulation-directives.js';
import type { SubmissionMeter } from './submission-meter.js';
import type { CallMeter } from './call-meter.js';
import type { KeyUsage } from './key-usage.js';
import type { OpenPredictions } from './open-predictions.js';

/** What the route handlers depend on: the in-memory state and the simulator's settings. */
export interface ProviderSimContext {
  store: PredictionStore;
  meter: SubmissionMeter;
  /** Every call per kind, for the usage ledger's exact comparison (GET /v1/stats `calls`). */
  calls: CallMeter;
  /** Open predictions per account (GET /v1/stats), and the cap PROVIDER_SIM_MAX_OPEN_PREDICTIONS checks. */
  openPredictions: OpenPredictions;
  /** PROVIDER_SIM_MAX_OPEN_PREDICTIONS: beyond it a POST answers 429; undefined: no cap. */
  maxOpenPredictions: number | undefined;
  /** The Retry-After (seconds) of every 429 it answers. */
  retryAfterSeconds: number;
  logger: Logger;
  /** Accepted bearer tokens now (PROVIDER_SIM_API_KEYS_FILE is read again on change); undefined accepts any non-empty one. */
  apiKeys: () => readonly string[] | undefined;
  /** Requests by the key that made them, by fingerprint (GET /v1/stats/keys). */
  keys: KeyUsage;
  latencyMs: number;
  failureRate: number;
  failureKind: SimulationKind;
  inputTimeoutMs: number;
  random: () => number;
  now: () => Date;
  /** The base of output_url, without a trailing slash (known only once the server is bound). */
  publicUrl: () => string;
}
