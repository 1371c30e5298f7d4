import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { Queryable } from '@atelier/db';
import { BudgetExhaustionCache } from './budget-exhaustion-cache.js';
import { upsertSpendBudget } from './provider-limits-sql.js';
import { suiteJobsPool } from '../test-support/jobs-database.js';
import { spendToday } from '../test-support/spend.js';

// What CreateJob's budget refusal reads, against the real statement: one query for a burst, this
// replica's changes seen at once, another's within the TTL.
const pool = suiteJobsPool();
const newProvider = () => `bc-${randomBytes(4).toString('hex')}`;

/** The pool, counting the statements sent through it. */
function countingPool(): { db: Queryable; sent: () => number } {
  let sent = 0;
  const db = new Proxy(pool, {
    get(target, property, receiver) {
      if (property === 'query') sent += 1;
      return Reflect.get(target, property, receiver) as unknown;
    },
  });
  return { db, sent: () => sent };
}

const budget = (provider: string, dailyLimitMicros: number) =>
  upsertSpendBudget(pool, { providerCode: provider, providerModel: '', dailyLimitMicros, currency: 'USD', updatedBy: 'test-admin' });

describe('budget exhaustion cache', () => {
  it('answers a burst of creates with one query, and the same answer as the statement', async () => {
    const provider = newProvider();
    await budget(provider, 1_000);
    await spendToday(pool, provider, 1_000);
    const { db, sent } = countingPool();
    const cache = new BudgetExhaustionCache(db, 60_000);
    const answers = await Promise.all(Array.from({ length: 50 }, () => cache.exhausted(provider, 'model-a')));
    expect(new Set(answers)).toEqual(new Set([true]));
    expect(await cache.exhausted(provider, 'model-a')).toBe(true);
    expect(await cache.exhausted(newProvider(), 'model-a')).toBe(false);
    expect(sent()).toBe(2);
  });

  it('reads again after forget (a change made here) and after its TTL (a change made elsewhere)', async () => {
    const provider = newProvider();
    await budget(provider, 1_000);
    const cache = new BudgetExhaustionCache(pool, 300);
    expect(await cache.exhausted(provider, 'model-a')).toBe(false);
    await spendToday(pool, provider, 1_000);
    expect(await cache.exhausted(provider, 'model-a')).toBe(false); // within the TTL: the earlier answer
    cache.forget();
    expect(await cache.exhausted(provider, 'model-a')).toBe(true);
    await budget(provider, 5_000); // raised by another replica: this one does not know
    await sleep(350);
    expect(await cache.exhausted(provider, 'model-a')).toBe(false);
  });

  it('does not keep an answer read while a forget happened (it may predate the change)', async () => {
    const provider = newProvider();
    await budget(provider, 1_000);
    const cache = new BudgetExhaustionCache(pool, 60_000);
    const reading = cache.exhausted(provider, 'model-a');
    cache.forget();
    await spendToday(pool, provider, 1_000);
    await reading;
    expect(await cache.exhausted(provider, 'model-a')).toBe(true);
  });
});
