import type {
  jobsAdminV1,
  jobsCredentialsV1,
  jobsDispatchGatesV1,
  jobsExecutionV1,
  jobsReconciliationV1,
  jobsUsageV1,
  jobsV1,
} from '@atelier/contracts';
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
 * The usage ledger: workers record the calls they made to vendors; the gateway (for admins) and
 * the operator CLI read spend and recompute costs. Neither side may do the other's part.
 */
export const usageCallerPolicy: CallerPolicy<typeof jobsUsageV1.ProviderUsageServiceService> = {
  worker: ['recordProviderCalls'],
  gateway: ['getSpend', 'listTopSpenders', 'listJobProviderCalls', 'recomputeCosts'],
  ops: ['getSpend', 'listTopSpenders', 'listJobProviderCalls', 'recomputeCosts'],
};

/**
 * Reconciliation with the vendor: workers run it (they hold the vendor's platform key and list its
 * predictions); operators, through the gateway's admin API or the operator CLI, read the findings
 * and acknowledge them. Neither may do the other's part.
 */
export const reconciliationCallerPolicy: CallerPolicy<typeof jobsReconciliationV1.ProviderReconciliationServiceService> = {
  worker: ['beginReconciliation', 'submitVendorPredictions', 'finishReconciliation'],
  gateway: ['listReconciliationFindings', 'acknowledgeReconciliationFinding'],
  ops: ['listReconciliationFindings', 'acknowledgeReconciliationFinding'],
};

/**
 * Users' vendor keys: the gateway registers, lists and deletes them for their owners; a worker
 * gets a job's plain key (only under the job's lease, or to cancel its prediction, checked by the
 * handler) and reports the vendor's refusal of it; operators rewrap them after a KEK rotation
 * (the operator CLI). No one else — not the gateway — may ever read a plain key.
 */
export const credentialsCallerPolicy: CallerPolicy<typeof jobsCredentialsV1.ProviderCredentialsServiceService> = {
  gateway: ['createProviderCredential', 'listProviderCredentials', 'deleteProviderCredential'],
  worker: ['getJobCredential', 'reportCredentialRefused'],
  ops: ['rewrapCredentials'],
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
