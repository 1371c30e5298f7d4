import type { PredictionInput } from './request-validation.js';

/**
 * One prediction's state and the only code that changes it. Every transition refuses to leave
 * a terminal status, so a cancel racing the runner can never be overwritten by a late success
 * (or the other way round): whichever lands first wins, the other is a no-op.
 */
export type PredictionStatus = 'starting' | 'processing' | 'succeeded' | 'failed' | 'canceled';

export interface PredictionOutput {
  bytes: Buffer;
  contentType: string;
}

export interface PredictionError {
  code: string;
  message: string;
}

export interface Prediction {
  readonly id: string;
  /** What the submit asked for (the image URL left out), echoed as vendors do: tests read what Atelier sent. */
  readonly input: Omit<PredictionInput, 'imageUrl'>;
  readonly model: string;
  readonly version: string | null;
  readonly idempotencyKey: string | null;
  /** The account (routes/auth.ts accountOf) whose key created it: the one the vendor bills, the one that lists it. */
  readonly account: string;
  readonly createdAt: Date;
  /** How long `processing` lasts; progress is elapsed time over this. */
  readonly latencyMs: number;
  status: PredictionStatus;
  startedAt: Date | null;
  completedAt: Date | null;
  /** Progress frozen when the prediction ended (a cancel or failure keeps where it was). */
  finalProgress: number | null;
  /** The output bytes; dropped when the prediction is evicted (its content type stays). */
  output: PredictionOutput | null;
  outputContentType: string | null;
  error: PredictionError | null;
  flagged: boolean;
  /** Aborted on cancel (and on server close) so the runner's fetch and timers stop at once. */
  readonly abort: AbortController;
  /** Reads still to refuse with 503 (`#sim-flaky`): polls of the prediction, downloads of its output. */
  readonly flakyReadsLeft: { polls: number; downloads: number };
}

export const TERMINAL_STATUSES: ReadonlySet<PredictionStatus> = new Set(['succeeded', 'failed', 'canceled']);

export function isTerminal(prediction: Prediction): boolean {
  return TERMINAL_STATUSES.has(prediction.status);
}

export function newPrediction(fields: {
  id: string;
  model: string;
  version: string | null;
  idempotencyKey: string | null;
  account?: string;
  latencyMs: number;
  now: Date;
  flakyReads?: number;
  input?: PredictionInput;
}): Prediction {
  const { imageUrl: _imageUrl, ...input } = fields.input ?? { imageUrl: '' };
  return {
    id: fields.id,
    input,
    model: fields.model,
    version: fields.version,
    idempotencyKey: fields.idempotencyKey,
    account: fields.account ?? '',
    createdAt: fields.now,
    latencyMs: fields.latencyMs,
    status: 'starting',
    startedAt: null,
    completedAt: null,
    finalProgress: null,
    output: null,
    outputContentType: null,
    error: null,
    flagged: false,
    abort: new AbortController(),
    flakyReadsLeft: { polls: fields.flakyReads ?? 0, downloads: fields.flakyReads ?? 0 },
  };
}

/**
 * Integer 0–100, computed on read: linear in the time spent processing, at most 99 until the
 * prediction has succeeded (a vendor never says 100 before the output exists).
 */
export function progressOf(prediction: Prediction, now: Date): number {
  if (prediction.finalProgress !== null) return prediction.finalProgress;
  if (prediction.status !== 'processing' || !prediction.startedAt) return 0;
  if (prediction.latencyMs <= 0) return 99;
  const elapsed = now.getTime() - prediction.startedAt.getTime();
  return Math.max(0, Math.min(99, Math.floor((elapsed / prediction.latencyMs) * 100)));
}

/** starting → processing; false when the prediction already ended (e.g. cancelled meanwhile). */
export function markProcessing(prediction: Prediction, now: Date): boolean {
  if (prediction.status !== 'starting') return false;
  prediction.status = 'processing';
  prediction.startedAt = now;
  return true;
}

function finish(prediction: Prediction, status: PredictionStatus, now: Date): boolean {
  if (isTerminal(prediction)) return false;
  prediction.finalProgress = status === 'succeeded' ? 100 : progressOf(prediction, now);
  prediction.status = status;
  prediction.completedAt = now;
  return true;
}

export function markSucceeded(prediction: Prediction, output: PredictionOutput, flagged: boolean, now: Date): boolean {
  if (!finish(prediction, 'succeeded', now)) return false;
  prediction.output = output;
  prediction.outputContentType = output.contentType;
  prediction.flagged = flagged;
  return true;
}

export function markFailed(prediction: Prediction, error: PredictionError, now: Date): boolean {
  if (!finish(prediction, 'failed', now)) return false;
  prediction.error = error;
  return true;
}

/** Cancelling stops the runner: its pending fetch, sleep or hang ends with the abort. */
export function markCanceled(prediction: Prediction, now: Date): boolean {
  if (!finish(prediction, 'canceled', now)) return false;
  prediction.abort.abort();
  return true;
}

/** Whether this read should be refused as the vendor's passing trouble (`#sim-flaky`); counts it. */
export function takeFlakyRead(prediction: Prediction, read: 'polls' | 'downloads'): boolean {
  if (prediction.flakyReadsLeft[read] <= 0) return false;
  prediction.flakyReadsLeft[read] -= 1;
  return true;
}
