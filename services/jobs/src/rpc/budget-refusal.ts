import { UnavailableError } from '@atelier/errors';
import { nextUtcDay } from '../domain/provider-gates.js';
import type { JobsContext } from '../jobs-context.js';

/** The reason a create answers when the provider's daily budget is spent (the gateway's PROVIDER_BUDGET_EXHAUSTED). */
export const PROVIDER_BUDGET_EXHAUSTED = 'PROVIDER_BUDGET_EXHAUSTED';

/**
 * A new job of a provider (model) whose daily budget is spent would only wait in the queue until
 * the next UTC day: the create is refused instead, UNAVAILABLE with Retry-After to the next
 * window (docs/budgets-and-limits.md). Jobs already queued wait; a raised limit opens creates at
 * once. Only jobs on our own key are held to a budget: a user's own key pays its own bill.
 */
export async function refuseWhenBudgetSpent(
  context: Pick<JobsContext, 'budgets'>,
  job: { providerCode: string | null; providerModel: string | null; credential?: { mode: string } },
): Promise<void> {
  if (job.providerCode === null || job.credential?.mode === 'user_key') return;
  if (!(await context.budgets.exhausted(job.providerCode, job.providerModel ?? ''))) return;
  const now = new Date();
  throw new UnavailableError(`today's spending limit of this model's provider is reached; new generations open at the next UTC day`, {
    reason: PROVIDER_BUDGET_EXHAUSTED,
    retryAfterSeconds: Math.ceil((nextUtcDay(now).getTime() - now.getTime()) / 1000),
  });
}
