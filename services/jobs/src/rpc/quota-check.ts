import type { QuotaCheck } from '../db/transitions/create-sql.js';
import type { JobsContext } from '../jobs-context.js';

/** The limits and the counted job types of this service: what CreateJob enforces and GetQuota reports. */
export function quotaCheckOf(context: Pick<JobsContext, 'registry' | 'quota'>): QuotaCheck {
  return {
    jobTypes: context.registry
      .all()
      .filter((definition) => definition.countsTowardQuota)
      .map((definition) => definition.jobType),
    dailyLimit: context.quota.dailyLimit,
    monthlyLimit: context.quota.monthlyLimit,
    maxInFlight: context.quota.maxInFlight,
  };
}
