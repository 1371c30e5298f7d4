import {
  jobsAdminV1,
  jobsCredentialsV1,
  jobsDispatchGatesV1,
  jobsExecutionV1,
  jobsReconciliationV1,
  jobsUsageV1,
  jobsV1,
  loadDescriptorSet,
} from '@atelier/contracts';
import { registerService, startGrpcServer, type GrpcServerHandle, type GrpcServingOptions } from '@atelier/grpc';
import type { JobsContext } from './jobs-context.js';
import {
  adminCallerPolicy,
  credentialsCallerPolicy,
  dispatchGatesCallerPolicy,
  executionCallerPolicy,
  jobsCallerPolicy,
  reconciliationCallerPolicy,
  usageCallerPolicy,
} from './rpc/caller-policy.js';
import { acknowledgeReconciliationFinding, listReconciliationFindings } from './rpc/admin/reconciliation-findings.js';
import { beginReconciliation, finishReconciliation, submitVendorPredictions } from './rpc/reconciliation-run.js';
import { recordProviderCalls } from './rpc/usage/record-provider-calls.js';
import { recomputeCosts } from './rpc/usage/recompute-costs.js';
import { getSpend, listJobProviderCalls, listTopSpenders } from './rpc/usage/usage-reads.js';
import { createProviderCredential, deleteProviderCredential, listProviderCredentials } from './rpc/provider-credentials.js';
import { getJobCredential, reportCredentialRefused } from './rpc/get-job-credential.js';
import { rewrapCredentials } from './rpc/rewrap-credentials.js';
import {
  deleteProviderLimit,
  deleteSpendBudget,
  listProviderLimits,
  listSpendBudgets,
  setProviderLimit,
  setSpendBudget,
} from './rpc/dispatch-gates/admin-gates.js';
import { acquireProviderPermits, reportProviderThrottle } from './rpc/dispatch-gates/worker-gates.js';
import { getJobDetails } from './rpc/admin/get-job-details.js';
import { getOverview } from './rpc/admin/get-overview.js';
import { listJobsAuditEntries } from './rpc/admin/list-audit-entries.js';
import { getQueueStats } from './rpc/admin/get-queue-stats.js';
import { listAllJobs } from './rpc/admin/list-all-jobs.js';
import { listDeadOutboxEvents, listOutboxReplays, replayOutboxEvent } from './rpc/admin/outbox-admin.js';
import { adminCancelJob } from './rpc/admin/cancel-job.js';
import { retryJob } from './rpc/admin/retry-job.js';
import { cancelJob } from './rpc/cancel-job.js';
import { claimJob, claimJobs } from './rpc/claim-job.js';
import { awaitJobs } from './rpc/await-jobs.js';
import { completeJob, completeJobs } from './rpc/complete-job.js';
import { createJob } from './rpc/create-job.js';
import { failJob } from './rpc/fail-job.js';
import { getJob } from './rpc/get-job.js';
import { countActiveJobsUsingAsset } from './rpc/count-active-jobs-using-asset.js';
import { getJobStatus } from './rpc/get-job-status.js';
import { getQuota } from './rpc/get-quota.js';
import { getAccountDeletion } from './rpc/get-account-deletion.js';
import { requestAccountDeletion } from './rpc/request-account-deletion.js';
import { heartbeat, heartbeats } from './rpc/heartbeat.js';
import { listJobs } from './rpc/list-jobs.js';
import { recordProviderRequest } from './rpc/record-provider-request.js';
import { releaseJob } from './rpc/release-job.js';
import { reportProgress } from './rpc/report-progress.js';
import { watchJob } from './rpc/watch-job.js';

export const JOBS_SERVICE_NAMES = {
  jobs: 'atelier.jobs.v1.JobsService',
  execution: 'atelier.jobs.v1.JobExecutionService',
  admin: 'atelier.jobs.v1.JobsAdminService',
  usage: 'atelier.jobs.v1.ProviderUsageService',
  reconciliation: 'atelier.jobs.v1.ProviderReconciliationService',
  credentials: 'atelier.jobs.v1.ProviderCredentialsService',
  dispatchGates: 'atelier.jobs.v1.ProviderDispatchService',
} as const;

/** Serves the user, execution, operator and usage-ledger APIs of atelier.jobs.v1 over mutual TLS, with health (and reflection when enabled). */
export function startJobsServer(context: JobsContext, options: GrpcServingOptions): Promise<GrpcServerHandle> {
  const { logger } = context;
  return startGrpcServer({
    ...options,
    logger,
    descriptorSet: loadDescriptorSet(),
    services: [
      registerService(
        JOBS_SERVICE_NAMES.jobs,
        jobsV1.JobsServiceService,
        {
          createJob: createJob(context),
          getJob: getJob(context),
          listJobs: listJobs(context),
          cancelJob: cancelJob(context),
          watchJob: watchJob(context),
          getQuota: getQuota(context),
          requestAccountDeletion: requestAccountDeletion(context),
          getAccountDeletion: getAccountDeletion(context),
        },
        logger,
        jobsCallerPolicy,
      ),
      registerService(
        JOBS_SERVICE_NAMES.execution,
        jobsExecutionV1.JobExecutionServiceService,
        {
          claimJob: claimJob(context),
          heartbeat: heartbeat(context),
          heartbeats: heartbeats(context),
          recordProviderRequest: recordProviderRequest(context),
          completeJob: completeJob(context),
          failJob: failJob(context),
          releaseJob: releaseJob(context),
          claimJobs: claimJobs(context),
          completeJobs: completeJobs(context),
          reportProgress: reportProgress(context),
          getJobStatus: getJobStatus(context),
          countActiveJobsUsingAsset: countActiveJobsUsingAsset(context),
          awaitJobs: awaitJobs(context.waitingWorkers),
        },
        logger,
        executionCallerPolicy,
      ),
      registerService(
        JOBS_SERVICE_NAMES.admin,
        jobsAdminV1.JobsAdminServiceService,
        {
          listAllJobs: listAllJobs(context),
          getJobDetails: getJobDetails(context),
          retryJob: retryJob(context),
          listDeadOutboxEvents: listDeadOutboxEvents(context),
          replayOutboxEvent: replayOutboxEvent(context),
          getQueueStats: getQueueStats(context),
          cancelJob: adminCancelJob(context),
          listOutboxReplays: listOutboxReplays(context),
          getOverview: getOverview(context),
          listAuditEntries: listJobsAuditEntries(context),
        },
        logger,
        adminCallerPolicy,
      ),
      registerService(
        JOBS_SERVICE_NAMES.usage,
        jobsUsageV1.ProviderUsageServiceService,
        {
          recordProviderCalls: recordProviderCalls(context),
          getSpend: getSpend(context),
          listTopSpenders: listTopSpenders(context),
          listJobProviderCalls: listJobProviderCalls(context),
          recomputeCosts: recomputeCosts(context),
        },
        logger,
        usageCallerPolicy,
      ),
      registerService(
        JOBS_SERVICE_NAMES.reconciliation,
        jobsReconciliationV1.ProviderReconciliationServiceService,
        {
          beginReconciliation: beginReconciliation(context),
          submitVendorPredictions: submitVendorPredictions(context),
          finishReconciliation: finishReconciliation(context),
          listReconciliationFindings: listReconciliationFindings(context),
          acknowledgeReconciliationFinding: acknowledgeReconciliationFinding(context),
        },
        logger,
        reconciliationCallerPolicy,
      ),
      registerService(
        JOBS_SERVICE_NAMES.credentials,
        jobsCredentialsV1.ProviderCredentialsServiceService,
        {
          createProviderCredential: createProviderCredential(context),
          listProviderCredentials: listProviderCredentials(context),
          deleteProviderCredential: deleteProviderCredential(context),
          getJobCredential: getJobCredential(context),
          reportCredentialRefused: reportCredentialRefused(context),
          rewrapCredentials: rewrapCredentials(context),
        },
        logger,
        credentialsCallerPolicy,
      ),
      registerService(
        JOBS_SERVICE_NAMES.dispatchGates,
        jobsDispatchGatesV1.ProviderDispatchServiceService,
        {
          acquireProviderPermits: acquireProviderPermits(context),
          reportProviderThrottle: reportProviderThrottle(context),
          listSpendBudgets: listSpendBudgets(context),
          setSpendBudget: setSpendBudget(context),
          deleteSpendBudget: deleteSpendBudget(context),
          listProviderLimits: listProviderLimits(context),
          setProviderLimit: setProviderLimit(context),
          deleteProviderLimit: deleteProviderLimit(context),
        },
        logger,
        dispatchGatesCallerPolicy,
      ),
    ],
  });
}
