import { enumWords, jobsReconciliationV1 } from '@atelier/contracts';
import type { FindingKindWord, ReconciliationFindingRow, ReconciliationRunRow } from '../db/reconciliation-sql.js';
import { VENDOR_CLOCK_SLACK_MS } from '../domain/reconciliation.js';

/** reconciliation_findings.kind holds the contract's words for ReconciliationFindingKind. */
export const FINDING_KINDS = enumWords(jobsReconciliationV1.ReconciliationFindingKind);

export function toRunMessage(row: ReconciliationRunRow): jobsReconciliationV1.ReconciliationRun {
  return {
    runId: row.id,
    providerCode: row.provider_code,
    windowStart: row.window_start,
    windowEnd: row.window_end,
    leaseExpiresAt: row.lease_expires_at,
    listFrom: new Date(row.window_start.getTime() - VENDOR_CLOCK_SLACK_MS),
  };
}

export function toFindingMessage(row: ReconciliationFindingRow): jobsReconciliationV1.ReconciliationFinding {
  return {
    id: Number(row.id),
    providerCode: row.provider_code,
    kind: FINDING_KINDS.fromWord(row.kind) ?? jobsReconciliationV1.ReconciliationFindingKind.UNSPECIFIED,
    vendorId: row.vendor_id,
    jobId: row.job_id ?? undefined,
    detail: row.detail,
    runId: row.run_id,
    foundAt: row.found_at,
    acknowledgedAt: row.acknowledged_at ?? undefined,
    acknowledgedBy: row.acknowledged_by ?? undefined,
  };
}

/** Counts of the kinds recorded, in the contract's enum. */
export function findingCounts(kinds: readonly FindingKindWord[]): jobsReconciliationV1.FindingCount[] {
  const counts = new Map<FindingKindWord, number>();
  for (const kind of kinds) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return [...counts].map(([kind, count]) => ({
    kind: FINDING_KINDS.fromWord(kind) ?? jobsReconciliationV1.ReconciliationFindingKind.UNSPECIFIED,
    count,
  }));
}
