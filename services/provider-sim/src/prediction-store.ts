import { isTerminal, type Prediction } from './domain/prediction.js';
import type { ListQuery } from './domain/list-query.js';

/** One page of an account's predictions, oldest first; `lastSequence` is where the next page starts. */
export interface PredictionPage {
  predictions: Prediction[];
  lastSequence: number;
  more: boolean;
}

/**
 * Every prediction in memory, by id and by Idempotency-Key. Memory is capped: past
 * `maxPredictions`, the oldest finished predictions and their outputs are dropped (running ones
 * never are, so a cap smaller than the work in flight only delays eviction).
 *
 * An Idempotency-Key keeps pointing at its prediction even after eviction, so a late replay still
 * gets the same prediction (as last seen, without its output) and is never charged again.
 *
 * An evicted prediction is forgotten by the list (`GET /v1/predictions`) too: unlike a real vendor,
 * which keeps its records of what it billed, the simulator's history is only as long as the cap.
 */
export class PredictionStore {
  /** Insertion order is creation order, which makes "oldest first" a plain iteration. */
  private readonly predictions = new Map<string, Prediction>();
  private readonly byIdempotencyKey = new Map<string, Prediction>();
  private readonly jobsSeen = new Set<string>();
  /** A number per prediction in creation order: the list's cursor (stable across evictions). */
  private readonly sequences = new Map<string, number>();
  private createdTotal = 0;

  constructor(private readonly maxPredictions: number) {}

  get(id: string): Prediction | undefined {
    return this.predictions.get(id);
  }

  findByIdempotencyKey(key: string): Prediction | undefined {
    return this.byIdempotencyKey.get(key);
  }

  /** Stores a new prediction, then evicts beyond the cap; returns the evicted ones (for logs). */
  add(prediction: Prediction): Prediction[] {
    this.predictions.set(prediction.id, prediction);
    if (prediction.idempotencyKey !== null) this.byIdempotencyKey.set(prediction.idempotencyKey, prediction);
    this.createdTotal += 1;
    this.sequences.set(prediction.id, this.createdTotal);
    return this.evictBeyondCap();
  }

  /**
   * True exactly once per job: for the first POST that reaches the simulation decision. This is
   * what `#sim-once` keys on.
   */
  claimFirstPostOfJob(job: string): boolean {
    if (this.jobsSeen.has(job)) return false;
    this.jobsSeen.add(job);
    return true;
  }

  /** Predictions created since start-up, evicted ones included. */
  get predictionsTotal(): number {
    return this.createdTotal;
  }

  /** Predictions held in memory now. */
  get size(): number {
    return this.predictions.size;
  }

  /**
   * The account's predictions held in memory, created in [createdAfter, createdBefore), after the
   * cursor's, oldest first, at most `limit`. A scan of memory: the cap bounds it.
   */
  list(account: string, query: ListQuery): PredictionPage {
    const predictions: Prediction[] = [];
    let lastSequence = query.afterSequence;
    for (const prediction of this.predictions.values()) {
      const sequence = this.sequences.get(prediction.id) ?? 0;
      if (sequence <= query.afterSequence || prediction.account !== account) continue;
      const created = prediction.createdAt.getTime();
      if (query.createdAfter && created < query.createdAfter.getTime()) continue;
      if (query.createdBefore && created >= query.createdBefore.getTime()) continue;
      if (predictions.length === query.limit) return { predictions, lastSequence, more: true };
      predictions.push(prediction);
      lastSequence = sequence;
    }
    return { predictions, lastSequence, more: false };
  }

  /** Every prediction still held that has not ended (to stop their runners on close). */
  unfinished(): Prediction[] {
    return [...this.predictions.values()].filter((prediction) => !isTerminal(prediction));
  }

  private evictBeyondCap(): Prediction[] {
    const evicted: Prediction[] = [];
    for (const prediction of this.predictions.values()) {
      if (this.predictions.size <= this.maxPredictions) break;
      if (!isTerminal(prediction)) continue;
      this.predictions.delete(prediction.id);
      this.sequences.delete(prediction.id);
      prediction.output = null;
      evicted.push(prediction);
    }
    return evicted;
  }
}
