import type { jobsAdminV1, jobsDispatchGatesV1, jobsExecutionV1, jobsV1 } from '@atelier/contracts';
import type { CallerPolicy } from '@atelier/grpc';

// Who may call what (callers are the service identities of their certificates).

/**
 * The user API: the gateway acts for users (their jobs and their quota, GetQuota); community reads
 * a job to make a draft from it, and nothing else — not a user's quota.
 */
export const jobsCallerPolicy: CallerPolicy<typeof jobsV1.JobsServiceService> = {
  gateway: 'all',
  community: ['getJob'],
};

/**
 * The execution API (claims, leases, outcomes): workers; media asks whether a job really ended
 * before it deletes the job's outputs, and whether an active job uses an asset its owner deletes;
 * webhooks asks whether a job ended, and whose job it is, before it calls a user's endpoints back.
 */
export const executionCallerPolicy: CallerPolicy<typeof jobsExecutionV1.JobExecutionServiceService> = {
  worker: 'all',
  media: ['getJobStatus', 'countActiveJobsUsingAsset'],
  webhooks: ['getJobStatus'],
};

/** The operator API: the gateway (for admins) and the operator CLI. */
export const adminCallerPolicy: CallerPolicy<typeof jobsAdminV1.JobsAdminServiceService> = {
  gateway: 'all',
  ops: 'all',
};

/**
 * The providers' gates: workers take request permits and report a vendor's 429; the gateway (for
 * admins) and the operator CLI read and set budgets and limits — and nothing of each other's.
 */
export const dispatchGatesCallerPolicy: CallerPolicy<typeof jobsDispatchGatesV1.ProviderDispatchServiceService> = {
  worker: ['acquireProviderPermits', 'reportProviderThrottle'],
  gateway: ['listSpendBudgets', 'setSpendBudget', 'deleteSpendBudget', 'listProviderLimits', 'setProviderLimit', 'deleteProviderLimit'],
  ops: ['listSpendBudgets', 'setSpendBudget', 'deleteSpendBudget', 'listProviderLimits', 'setProviderLimit', 'deleteProviderLimit'],
};
