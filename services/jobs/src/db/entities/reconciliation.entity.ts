import { defineEntity, p } from '@atelier/orm';
import { MAX_USER_ID_LENGTH } from '@atelier/validation';

/** jobs.reconciliation_runs: one window of one provider reconciled by one worker (migration 0016). */
export const ReconciliationRunEntity = defineEntity({
  name: 'ReconciliationRun',
  tableName: 'reconciliation_runs',
  properties: {
    id: p.uuid().primary(),
    providerCode: p.string().length(64),
    windowStart: p.datetime(),
    windowEnd: p.datetime(),
    status: p.string().length(16),
    workerId: p.string().length(200),
    leaseExpiresAt: p.datetime(),
    startedAt: p.datetime().defaultRaw('now()'),
    finishedAt: p.datetime().nullable(),
    predictionsSeen: p.integer().default(0),
    findingsRecorded: p.integer().default(0),
  },
  uniques: [{ name: 'reconciliation_runs_one_running', properties: ['providerCode'], where: `status = 'running'` }],
  indexes: [{ name: 'reconciliation_runs_finished_by_end', properties: ['providerCode', 'windowEnd'], where: `status = 'finished'` }],
  checks: [
    { name: 'reconciliation_runs_status_known', expression: `status IN ('running', 'finished', 'abandoned')` },
    { name: 'reconciliation_runs_predictions_seen_range', expression: 'predictions_seen >= 0' },
    { name: 'reconciliation_runs_findings_recorded_range', expression: 'findings_recorded >= 0' },
    { name: 'reconciliation_runs_window_order', expression: 'window_end > window_start' },
    { name: 'reconciliation_runs_finished_at', expression: `(status = 'finished') = (finished_at IS NOT NULL)` },
  ],
});

/** jobs.reconciliation_vendor_predictions: the vendor's predictions as last listed (migration 0016). */
export const ReconciliationVendorPredictionEntity = defineEntity({
  name: 'ReconciliationVendorPrediction',
  tableName: 'reconciliation_vendor_predictions',
  properties: {
    providerCode: p.string().length(64).primary(),
    vendorId: p.string().length(128).primary(),
    status: p.string().length(16),
    idempotencyKey: p.string().length(200).nullable(),
    createdAt: p.datetime(),
    predictTimeMs: p.bigint('number').nullable(),
    images: p.integer().nullable(),
    jobId: p.uuid().nullable(),
    lastRunId: p.uuid(),
    seenAt: p.datetime().defaultRaw('now()'),
  },
  primaryKeys: ['providerCode', 'vendorId'],
  indexes: [
    { name: 'reconciliation_vendor_predictions_by_run', properties: ['lastRunId'] },
    { name: 'reconciliation_vendor_predictions_by_job', properties: ['providerCode', 'jobId'] },
  ],
  checks: [
    { name: 'reconciliation_vendor_predictions_predict_time_range', expression: 'predict_time_ms >= 0' },
    { name: 'reconciliation_vendor_predictions_images_range', expression: 'images >= 0' },
  ],
});

/** jobs.reconciliation_findings: what the vendor and Atelier disagree on, each once (migration 0016). */
export const ReconciliationFindingEntity = defineEntity({
  name: 'ReconciliationFinding',
  tableName: 'reconciliation_findings',
  properties: {
    id: p.bigint('string').primary().generated('identity'),
    providerCode: p.string().length(64),
    kind: p.string().length(40),
    vendorId: p.string().length(128).default(''),
    jobId: p.uuid().nullable(),
    detail: p.string().length(1000).default(''),
    runId: p.uuid(),
    foundAt: p.datetime().defaultRaw('now()'),
    acknowledgedAt: p.datetime().nullable(),
    acknowledgedBy: p.string().length(MAX_USER_ID_LENGTH).nullable(),
  },
  uniques: [
    {
      name: 'reconciliation_findings_once_per_job',
      properties: ['providerCode', 'kind', 'vendorId', 'jobId'],
      where: 'job_id IS NOT NULL',
    },
    { name: 'reconciliation_findings_once_without_job', properties: ['providerCode', 'kind', 'vendorId'], where: 'job_id IS NULL' },
  ],
  indexes: [{ name: 'reconciliation_findings_open', properties: ['id'], where: 'acknowledged_at IS NULL' }],
  checks: [
    {
      name: 'reconciliation_findings_kind_known',
      expression: `kind IN ('prediction_without_job', 'job_with_two_billable_predictions', 'ledger_unknown_to_vendor')`,
    },
    { name: 'reconciliation_findings_acknowledged', expression: '(acknowledged_at IS NULL) = (acknowledged_by IS NULL)' },
  ],
});
