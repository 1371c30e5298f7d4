import { InvalidArgumentError } from '@atelier/errors';

/**
 * The rules of a reconciliation run that need no database (the matching itself is SQL:
 * db/reconciliation-sql.ts).
 */

/**
 * How much earlier than the vendor's stamp of a prediction the ledger's stamp of the submit that
 * created it may be: the worker stamps the call as it sends it, the vendor the prediction as it
 * creates it (and their clocks differ). A run lists this much before its window, and matches the
 * ledger's submits of its window shifted back by it.
 */
export const VENDOR_CLOCK_SLACK_MS = 60_000;

/** The kinds of finding (reconciliation_findings.kind; the contract's ReconciliationFindingKind words). */
export const FINDING_KIND_WORDS = ['prediction_without_job', 'job_with_two_billable_predictions', 'ledger_unknown_to_vendor'] as const;
export type FindingKindWord = (typeof FINDING_KIND_WORDS)[number];

/** The most predictions one SubmitVendorPredictions call may carry (the vendor's largest page). */
export const MAX_VENDOR_PREDICTIONS_PER_PAGE = 500;

/** The vendor's status words; anything else is refused. */
export const VENDOR_PREDICTION_STATUSES = ['starting', 'processing', 'succeeded', 'failed', 'canceled'] as const;

export interface VendorPredictionFields {
  id: string;
  status: string;
  createdAt: Date | undefined;
  idempotencyKey?: string | undefined;
  predictTimeMs?: number | undefined;
  images?: number | undefined;
}

export interface ValidVendorPrediction {
  id: string;
  status: string;
  createdAt: Date;
  idempotencyKey: string | null;
  predictTimeMs: number | null;
  images: number | null;
}

const PRINTABLE = /^[\x21-\x7e]{1,128}$/;
const KEY = /^[\x20-\x7e]{1,200}$/;

/**
 * A page as jobs keeps it: every field within the columns' bounds (an INVALID_ARGUMENT names the
 * first one that is not), each prediction once (the last listing of an id wins).
 */
export function validVendorPredictions(predictions: readonly VendorPredictionFields[]): ValidVendorPrediction[] {
  if (predictions.length > MAX_VENDOR_PREDICTIONS_PER_PAGE) {
    throw new InvalidArgumentError('predictions', `at most ${MAX_VENDOR_PREDICTIONS_PER_PAGE} per call`);
  }
  const byId = new Map<string, ValidVendorPrediction>();
  predictions.forEach((prediction, i) => {
    const field = (name: string) => `predictions[${i}].${name}`;
    if (!PRINTABLE.test(prediction.id)) throw new InvalidArgumentError(field('id'), 'must be 1–128 printable characters without spaces');
    if (!(VENDOR_PREDICTION_STATUSES as readonly string[]).includes(prediction.status)) {
      throw new InvalidArgumentError(field('status'), `must be one of ${VENDOR_PREDICTION_STATUSES.join(', ')}`);
    }
    if (!prediction.createdAt || Number.isNaN(prediction.createdAt.getTime()))
      throw new InvalidArgumentError(field('created_at'), 'is required');
    const key = prediction.idempotencyKey;
    if (key !== undefined && !KEY.test(key)) throw new InvalidArgumentError(field('idempotency_key'), 'must be 1–200 printable characters');
    const count = (value: number | undefined, name: string, max: number) => {
      if (value === undefined) return null;
      if (!Number.isInteger(value) || value < 0 || value > max) throw new InvalidArgumentError(field(name), `must be 0–${max}`);
      return value;
    };
    byId.set(prediction.id, {
      id: prediction.id,
      status: prediction.status,
      createdAt: prediction.createdAt,
      idempotencyKey: key ?? null,
      predictTimeMs: count(prediction.predictTimeMs, 'predict_time_ms', Number.MAX_SAFE_INTEGER),
      images: count(prediction.images, 'images', 2_147_483_647),
    });
  });
  return [...byId.values()];
}
