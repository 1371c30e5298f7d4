import { isTerminal, type Prediction } from './domain/prediction.js';

/** What /v1/stats says of an account's open predictions. */
export interface OpenCounts {
  /** Predictions created and not yet ended, now. */
  now: number;
  /** The most ever open at once since start-up: what a vendor's concurrency cap is checked against. */
  max: number;
}

/**
 * Open predictions per account — created, not yet succeeded, failed or cancelled — and the most
 * ever open at once, the number a vendor's concurrent-prediction cap is about. The maximum can
 * only grow when a prediction is created, so it is taken then.
 */
export class OpenPredictions {
  private readonly open = new Map<string, Set<Prediction>>();
  private readonly maxOpen = new Map<string, number>();
  private maxAll = 0;

  /** How many of the account's predictions are open now (before a new one). */
  openNow(account: string): number {
    return this.prune(account).size;
  }

  opened(account: string, prediction: Prediction): void {
    const predictions = this.prune(account);
    predictions.add(prediction);
    this.maxOpen.set(account, Math.max(this.maxOpen.get(account) ?? 0, predictions.size));
    this.maxAll = Math.max(this.maxAll, this.totalNow());
  }

  stats(): { now: number; max: number; by_account: Record<string, OpenCounts> } {
    const byAccount: Record<string, OpenCounts> = {};
    for (const account of this.open.keys()) byAccount[account] = { now: this.prune(account).size, max: this.maxOpen.get(account) ?? 0 };
    return { now: this.totalNow(), max: this.maxAll, by_account: byAccount };
  }

  private totalNow(): number {
    let total = 0;
    for (const account of this.open.keys()) total += this.prune(account).size;
    return total;
  }

  private prune(account: string): Set<Prediction> {
    let predictions = this.open.get(account);
    if (!predictions) {
      predictions = new Set();
      this.open.set(account, predictions);
    }
    for (const prediction of predictions) if (isTerminal(prediction)) predictions.delete(prediction);
    return predictions;
  }
}
