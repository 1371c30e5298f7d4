import { ExpiringCache } from '@atelier/caching';
import type { Queryable } from '@atelier/db';
import { budgetExhausted } from './provider-gates-sql.js';

/** How long a create trusts a budget's answer read by another create. */
export const BUDGET_ANSWER_TTL_MS = 1_000;

/**
 * budgetExhausted for CreateJob, read at most once a second per provider model: a burst of
 * creates asks Postgres once, not once per create (a round trip that cost a stylize create a
 * sixth of its database CPU). This replica forgets every answer when it changes what one depends
 * on — a budget set or deleted, vendor calls recorded, costs recomputed — so its own changes are
 * seen at once; another replica's are seen within the TTL. The claim's gate reads the budget
 * afresh every time: a create let through in that second only waits in the queue.
 */
export class BudgetExhaustionCache {
  private readonly answers = new ExpiringCache<string, boolean>(1_024);
  private readonly pending = new Map<string, Promise<boolean>>();
  /** Bumped by every forget(); a read stores its answer only if none happened since it began. */
  private generation = 0;

  constructor(
    private readonly db: Queryable,
    private readonly ttlMs = BUDGET_ANSWER_TTL_MS,
  ) {}

  exhausted(providerCode: string, providerModel: string): Promise<boolean> {
    const key = `${providerCode}\u0000${providerModel}`;
    const cached = this.answers.get(key);
    if (cached !== undefined) return Promise.resolve(cached);
    const shared = this.pending.get(key);
    if (shared) return shared;
    const generation = this.generation;
    const reading = budgetExhausted(this.db, providerCode, providerModel).then((answer) => {
      if (this.generation === generation) this.answers.set(key, answer, Date.now() + this.ttlMs);
      return answer;
    });
    this.pending.set(key, reading);
    const settle = () => {
      if (this.pending.get(key) === reading) this.pending.delete(key);
    };
    reading.then(settle, settle);
    return reading;
  }

  /** Something a budget's answer depends on changed here: the next create reads it again. */
  forget(): void {
    this.generation += 1;
    this.answers.clear();
    this.pending.clear();
  }
}
