import { Counter, type Registry } from '@atelier/metrics';
import { NO_IDEMPOTENCY_KEY } from './submission-meter.js';

/** The calls a client makes, as the usage ledger names them (jobs.provider_calls.call_kind). */
export const CALL_KINDS = ['submit', 'poll', 'cancel', 'output_fetch'] as const;
export type CallKind = (typeof CALL_KINDS)[number];
export type CallCounts = Record<CallKind, number>;

const zero = (): CallCounts => ({ submit: 0, poll: 0, cancel: 0, output_fetch: 0 });

/**
 * The vendor's own count of the calls it received, for a test to hold Atelier's usage ledger to
 * (`GET /v1/stats` → `calls`): every request of each kind, answered or refused, in total, per
 * prediction id named (a submit counts under the prediction it created or replayed) and, for
 * submits, per Idempotency-Key. Per-prediction and per-key entries are kept for the most recent
 * `maxEntries` of each, like the predictions themselves.
 */
export class CallMeter {
  private readonly total = zero();
  private readonly byPrediction = new Map<string, CallCounts>();
  private readonly submitsByKey = new Map<string, number>();
  private readonly counter: Counter<'kind'> | undefined;

  constructor(
    private readonly maxEntries: number,
    registry?: Registry,
  ) {
    if (registry) {
      this.counter = new Counter({
        name: 'atelier_provider_sim_calls_total',
        help: 'Calls received, by kind (submit, poll, cancel, output_fetch), refused ones included',
        labelNames: ['kind'],
        registers: [registry],
      });
    }
  }

  /** A submit as it arrives (before anything may refuse it). */
  countSubmit(idempotencyKey: string | null): void {
    this.total.submit += 1;
    this.counter?.inc({ kind: 'submit' });
    const key = idempotencyKey ?? NO_IDEMPOTENCY_KEY;
    const before = this.submitsByKey.get(key) ?? 0;
    // Deleted and set again: the most recently used keys are the ones kept.
    this.submitsByKey.delete(key);
    this.submitsByKey.set(key, before + 1);
    this.trim(this.submitsByKey);
  }

  /** The prediction a submit created or replayed. */
  submitAnswered(predictionId: string): void {
    this.entry(predictionId).submit += 1;
  }

  /** A poll, cancel or output fetch naming a prediction id (known or not). */
  count(kind: Exclude<CallKind, 'submit'>, predictionId: string): void {
    this.total[kind] += 1;
    this.counter?.inc({ kind });
    this.entry(predictionId)[kind] += 1;
  }

  snapshot(): { total: CallCounts; by_prediction: Record<string, CallCounts>; submits_by_key: Record<string, number> } {
    return {
      total: { ...this.total },
      by_prediction: Object.fromEntries([...this.byPrediction].map(([id, counts]) => [id, { ...counts }])),
      submits_by_key: Object.fromEntries(this.submitsByKey),
    };
  }

  private entry(predictionId: string): CallCounts {
    let counts = this.byPrediction.get(predictionId);
    if (!counts) {
      counts = zero();
      this.byPrediction.set(predictionId, counts);
      this.trim(this.byPrediction);
    }
    return counts;
  }

  private trim(map: Map<string, unknown>): void {
    while (map.size > this.maxEntries) map.delete(map.keys().next().value!);
  }
}
