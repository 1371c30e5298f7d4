import { randomUUID } from 'node:crypto';
import { jobsReconciliationV1 } from '@atelier/contracts';
import { inTransaction } from '@atelier/db';
import { AbortedError, InvalidArgumentError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { isKnownProviderCode } from '@atelier/job-types';
import { requireUuid } from '@atelier/validation';
import type { JobsContext } from '../jobs-context.js';
import {
  abandonExpiredRuns,
  finishReconciliationRun,
  hasRunningRun,
  insertLedgerUnknownFindings,
  insertPredictionWithoutJobFindings,
  insertReconciliationRun,
  insertTwoBillableFindings,
  lockLiveRun,
  matchVendorPredictionsToJobs,
  upsertVendorPredictions,
} from '../db/reconciliation-sql.js';
import { VENDOR_CLOCK_SLACK_MS, validVendorPredictions } from '../domain/reconciliation.js';
import { findingCounts, toRunMessage } from './reconciliation-mapper.js';
import { requireWorkerId } from './worker-id.js';

type Service = typeof jobsReconciliationV1.ProviderReconciliationServiceService;
const { BeginReconciliationOutcome } = jobsReconciliationV1;

function requireProviderCode(value: string): string {
  if (!isKnownProviderCode(value)) throw new InvalidArgumentError('provider_code', 'must name a provider this platform knows');
  return value;
}

function leaseLost(): AbortedError {
  return new AbortedError(
    'RECONCILIATION_LEASE_LOST',
    "this worker no longer holds the run's lease (it expired, or the run finished or was abandoned): begin again",
  );
}

/** The provider's next settled window, leased to the caller; TAKEN or NOT_DUE when there is none to give. */
export function beginReconciliation(context: JobsContext): Handler<Service['beginReconciliation']> {
  return async (request) => {
    const providerCode = requireProviderCode(request.providerCode);
    const workerId = requireWorkerId(request.workerId);
    const { settleMs, maxWindowMs, leaseMs } = context.reconciliation;
    const run = await inTransaction(context.pool, async (client) => {
      const abandoned = await abandonExpiredRuns(client, providerCode);
      if (abandoned > 0) context.logger.warn({ providerCode, abandoned }, 'reconciliation run abandoned: its lease expired');
      return insertReconciliationRun(client, { id: randomUUID(), providerCode, workerId, settleMs, maxWindowMs, leaseMs });
    });
    if (run) return { outcome: BeginReconciliationOutcome.STARTED, run: toRunMessage(run) };
    const taken = await hasRunningRun(context.pool, providerCode);
    return { outcome: taken ? BeginReconciliationOutcome.TAKEN : BeginReconciliationOutcome.NOT_DUE };
  };
}

/** Keeps one page of the vendor's list for the run and renews its lease. */
export function submitVendorPredictions(context: JobsContext): Handler<Service['submitVendorPredictions']> {
  return async (request) => {
    const runId = requireUuid(request.runId, 'run_id');
    const workerId = requireWorkerId(request.workerId);
    const predictions = validVendorPredictions(request.predictions);
    const leaseExpiresAt = await upsertVendorPredictions(context.pool, runId, workerId, context.reconciliation.leaseMs, predictions);
    if (!leaseExpiresAt) throw leaseLost();
    return { leaseExpiresAt };
  };
}

/**
 * Matches the run's predictions to jobs and records the findings, in one transaction with the
 * run locked: the window is covered exactly when its findings are recorded.
 */
export function finishReconciliation(context: JobsContext): Handler<Service['finishReconciliation']> {
  return async (request) => {
    const runId = requireUuid(request.runId, 'run_id');
    const workerId = requireWorkerId(request.workerId);
    const outcome = await inTransaction(context.pool, async (client) => {
      const run = await lockLiveRun(client, runId, workerId);
      if (!run) return undefined;
      const predictionsSeen = await matchVendorPredictionsToJobs(client, run);
      const kinds = [
        ...(await insertPredictionWithoutJobFindings(client, run)),
        ...(await insertTwoBillableFindings(client, run)),
        ...(await insertLedgerUnknownFindings(client, run, VENDOR_CLOCK_SLACK_MS)),
      ].map((finding) => finding.kind);
      const finished = await finishReconciliationRun(client, run.id, { predictionsSeen, findingsRecorded: kinds.length });
      return { finished, kinds };
    });
    if (!outcome) throw leaseLost();
    const { finished, kinds } = outcome;
    context.reconciliationMetrics.recorded(finished.provider_code, kinds);
    const log = { providerCode: finished.provider_code, runId, windowEnd: finished.window_end, predictionsSeen: finished.predictions_seen };
    if (kinds.length > 0) context.logger.warn({ ...log, findings: kinds.length }, 'reconciliation found predictions that do not match');
    else context.logger.info(log, 'reconciliation run finished');
    return { run: toRunMessage(finished), predictionsSeen: finished.predictions_seen, newFindings: findingCounts(kinds) };
  };
}
