import { jobsReconciliationV1 } from '@atelier/contracts';
import { pageSize } from '@atelier/encoding';
import { InvalidArgumentError, NotFoundError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { auditedChange, requireOperatorActor } from '@atelier/operator-audit';
import { requireUserId } from '@atelier/validation';
import type { JobsContext } from '../../jobs-context.js';
import {
  acknowledgeReconciliationFinding as acknowledge,
  selectOpenFindingCounts,
  selectReconciliationCoverage,
  selectReconciliationFindings,
} from '../../db/reconciliation-sql.js';
import { FINDING_KINDS, toFindingMessage } from '../reconciliation-mapper.js';

type Service = typeof jobsReconciliationV1.ProviderReconciliationServiceService;
const MAX_FINDING_ID = Number.MAX_SAFE_INTEGER;

function findingId(value: number, field: string): string {
  if (!Number.isInteger(value) || value < 1 || value > MAX_FINDING_ID) {
    throw new InvalidArgumentError(field, `must be a finding id: a positive integer of at most ${MAX_FINDING_ID}`);
  }
  return String(value);
}

/** Findings, newest first, with the open total and each provider's coverage. */
export function listReconciliationFindings({ pool }: JobsContext): Handler<Service['listReconciliationFindings']> {
  return async (request) => {
    const limit = pageSize(request.pageSize);
    const beforeId = request.pageToken ? findingId(Number(request.pageToken), 'page_token') : undefined;
    const kind =
      request.kind === jobsReconciliationV1.ReconciliationFindingKind.UNSPECIFIED ? undefined : FINDING_KINDS.wordOf(request.kind);
    if (request.kind !== jobsReconciliationV1.ReconciliationFindingKind.UNSPECIFIED && !kind) {
      throw new InvalidArgumentError('kind', 'is not a finding kind');
    }
    if (request.providerCode.length > 64) throw new InvalidArgumentError('provider_code', 'must be at most 64 characters');
    const [rows, open, coverage] = await Promise.all([
      selectReconciliationFindings(pool, {
        providerCode: request.providerCode || undefined,
        kind,
        unacknowledgedOnly: request.unacknowledgedOnly,
        beforeId,
        limit,
      }),
      selectOpenFindingCounts(pool),
      selectReconciliationCoverage(pool),
    ]);
    const page = rows.slice(0, limit);
    return {
      findings: page.map(toFindingMessage),
      nextPageToken: rows.length > limit ? page.at(-1)!.id : '',
      unacknowledgedTotal: open.reduce((total, row) => total + row.open, 0),
      coverage: coverage.map((row) => ({
        providerCode: row.provider_code,
        lastFinishedAt: row.last_finished_at,
        coveredUntil: row.covered_until,
      })),
    };
  };
}

/** Marks a finding seen by the operator (the first acknowledgement stays): the audit of who looked. */
export function acknowledgeReconciliationFinding(context: JobsContext): Handler<Service['acknowledgeReconciliationFinding']> {
  return async (request) => {
    const id = findingId(request.findingId, 'finding_id');
    const operatorId = requireUserId(request.operatorId, 'operator_id');
    const actor = requireOperatorActor(request.actor);
    const audited = { action: 'reconciliation.finding.acknowledge', actor, target: `finding:${id}` };
    const row = await auditedChange(context.pool, 'jobs', audited, async (tx) => {
      const found = await acknowledge(tx, id, operatorId);
      if (!found) throw new NotFoundError('reconciliation finding');
      return { result: found, after: { acknowledgedBy: found.acknowledged_by, acknowledgedAt: found.acknowledged_at } };
    });
    context.logger.info({ findingId: id, operator: operatorId }, 'reconciliation finding acknowledged');
    return { finding: toFindingMessage(row) };
  };
}
