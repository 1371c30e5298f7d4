import type { jobsV1 } from '@atelier/contracts';
import type { Handler } from '@atelier/grpc';
import { requireUserId } from '@atelier/validation';
import { selectQuotaUsage } from '../db/quota-usage-sql.js';
import { IN_FLIGHT_QUOTA_RULE, QUOTA_COUNTING_RULE, quotaStanding } from '../domain/quota.js';
import type { JobsContext } from '../jobs-context.js';
import { quotaCheckOf } from './quota-check.js';

type GetQuota = Handler<typeof jobsV1.JobsServiceService.getQuota>;

/**
 * The user's quota as CreateJob would count it now: the same counting SQL (quotaUsageSql), the
 * same limits and job types (quotaCheckOf), read without the user's lock — a prediction, which a
 * create committed right after it makes stale.
 */
export function getQuota(context: JobsContext): GetQuota {
  const check = quotaCheckOf(context);
  return async (request) => {
    const userId = requireUserId(request.userId, 'user_id');
    const usage = await selectQuotaUsage(context.pool, userId, check.jobTypes, check.monthlyLimit);
    const standing = quotaStanding(usage, check);
    return {
      dailyUsed: usage.today,
      dailyLimit: check.dailyLimit,
      dailyRemaining: standing.dailyRemaining,
      dailyResetsAt: usage.dailyResetsAt,
      monthlyUsed: usage.thisMonth,
      monthlyLimit: check.monthlyLimit,
      monthlyRemaining: standing.monthlyRemaining,
      monthlyResetsAt: usage.monthlyResetsAt,
      inFlight: usage.inFlight,
      maxInFlight: check.maxInFlight,
      inFlightRemaining: standing.inFlightRemaining,
      remainingNow: standing.remainingNow,
      countedJobTypes: [...check.jobTypes],
      dailyRule: QUOTA_COUNTING_RULE,
      inFlightRule: IN_FLIGHT_QUOTA_RULE,
    };
  };
}
