import type { FastifyInstance } from 'fastify';
import { jobsReconciliationV1 } from '@atelier/contracts';
import { callerOf } from '../auth/authenticate.js';
import type { GatewayContext } from '../gateway-context.js';
import { findingKinds } from '../http/api-enums.js';
import { badRequest } from '../http/http-error.js';
import { nullableString, object, pageQuery, responses, uuid } from '../http/schemas.js';
import { operatorActorOf } from '../auth/operator-actor.js';

const dateTime = { type: 'string', format: 'date-time' } as const;
const nullableDateTime = { type: ['string', 'null'], format: 'date-time' } as const;
const providerCode = { type: 'string', minLength: 1, maxLength: 64, pattern: '^[a-z][a-z0-9_-]{0,63}$' } as const;
/** Finding ids are a bigint identity; the pattern keeps them within JSON's exact integers too. */
const findingIdPattern = '^[1-9][0-9]{0,15}$';

const findingSchema = object({
  id: { type: 'string', pattern: findingIdPattern },
  provider: { type: 'string' },
  kind: {
    type: 'string',
    enum: findingKinds.words,
    description:
      'prediction_without_job: the vendor lists a prediction no job knows; job_with_two_billable_predictions: a job with two or more succeeded predictions at the vendor (billed twice); ledger_unknown_to_vendor: a platform-key submit the ledger recorded whose prediction the vendor does not list',
  },
  vendorId: { type: 'string', description: "the vendor's prediction id; empty for job_with_two_billable_predictions (detail names them)" },
  jobId: { ...uuid, type: ['string', 'null'] },
  detail: { type: 'string', description: 'what was found: prediction ids, statuses, idempotency keys (never user text)' },
  runId: uuid,
  foundAt: dateTime,
  acknowledgedAt: nullableDateTime,
  acknowledgedBy: nullableString,
});

const example = {
  id: '42',
  provider: 'sim',
  kind: 'prediction_without_job',
  vendorId: 'pred_6f1c0a9e2b7d4c3a5e8f0b1d',
  jobId: null,
  detail: 'succeeded prediction created 2026-12-03T21:04:05.120Z with Idempotency-Key none',
  runId: '019ae5c1-2f3a-7000-8000-00000000c0de',
  foundAt: '2026-12-03T21:16:02.000Z',
  acknowledgedAt: null,
  acknowledgedBy: null,
};

function toFindingDto(finding: jobsReconciliationV1.ReconciliationFinding) {
  return {
    id: String(finding.id),
    provider: finding.providerCode,
    kind: findingKinds.toApi(finding.kind),
    vendorId: finding.vendorId,
    jobId: finding.jobId ?? null,
    detail: finding.detail,
    runId: finding.runId,
    foundAt: finding.foundAt!.toISOString(),
    acknowledgedAt: finding.acknowledgedAt?.toISOString() ?? null,
    acknowledgedBy: finding.acknowledgedBy ?? null,
  };
}

interface FindingsQuery {
  provider?: string;
  kind?: string;
  open?: boolean;
  cursor?: string;
  limit: number;
}

/**
 * Reconciliation with the vendor, for operators (role admin, checked by the admin hook): the
 * findings jobs recorded (docs/reconciliation.md), newest first, and acknowledging one.
 */
export function registerAdminReconciliationRoutes(app: FastifyInstance, { peers }: GatewayContext): void {
  app.get<{ Querystring: FindingsQuery }>(
    '/admin-api/reconciliation/findings',
    {
      schema: {
        operationId: 'adminListReconciliationFindings',
        tags: ['operators'],
        summary:
          "What reconciliation with the vendor found: predictions no job knows, jobs billed twice, ledger calls the vendor does not list; newest first, with the open total and each provider's coverage",
        querystring: pageQuery({
          provider: providerCode,
          kind: { type: 'string', enum: findingKinds.words },
          open: { type: 'boolean', description: 'only findings no operator acknowledged yet' },
        }),
        response: responses({
          200: {
            ...object({
              items: { type: 'array', items: findingSchema },
              nextCursor: nullableString,
              openTotal: { type: 'integer', description: 'findings no operator acknowledged yet, every provider and kind' },
              coverage: {
                type: 'array',
                description: 'per provider: when its last run finished and up to when its predictions are reconciled',
                items: object({ provider: { type: 'string' }, lastFinishedAt: dateTime, coveredUntil: dateTime }),
              },
            }),
            examples: [
              {
                items: [example],
                nextCursor: null,
                openTotal: 1,
                coverage: [{ provider: 'sim', lastFinishedAt: '2026-12-03T21:16:02.000Z', coveredUntil: '2026-12-03T21:14:00.000Z' }],
              },
            ],
          },
        }),
      },
    },
    async (request) => {
      const q = request.query;
      if (q.cursor !== undefined && !new RegExp(findingIdPattern).test(q.cursor)) {
        throw badRequest('querystring.cursor must be the nextCursor of a previous page');
      }
      const result = await peers.reconciliation.listReconciliationFindings({
        providerCode: q.provider ?? '',
        kind: q.kind ? findingKinds.fromApi(q.kind)! : jobsReconciliationV1.ReconciliationFindingKind.UNSPECIFIED,
        unacknowledgedOnly: q.open ?? false,
        pageSize: q.limit,
        pageToken: q.cursor ?? '',
      });
      return {
        items: result.findings.map(toFindingDto),
        nextCursor: result.nextPageToken || null,
        openTotal: result.unacknowledgedTotal,
        coverage: result.coverage.map((row) => ({
          provider: row.providerCode,
          lastFinishedAt: row.lastFinishedAt!.toISOString(),
          coveredUntil: row.coveredUntil!.toISOString(),
        })),
      };
    },
  );

  app.post<{ Params: { id: string } }>(
    '/admin-api/reconciliation/findings/:id/acknowledge',
    {
      schema: {
        operationId: 'adminAcknowledgeReconciliationFinding',
        tags: ['operators'],
        summary: 'Mark a reconciliation finding seen: records who and when (the first acknowledgement stays)',
        params: object({ id: { type: 'string', pattern: findingIdPattern } }),
        response: responses({
          200: {
            ...object({ finding: findingSchema }),
            examples: [{ finding: { ...example, acknowledgedAt: '2026-12-03T21:20:00.000Z', acknowledgedBy: 'ops-carol' } }],
          },
        }),
      },
    },
    async (request) => {
      const { finding } = await peers.reconciliation.acknowledgeReconciliationFinding({
        actor: operatorActorOf(request),
        findingId: Number(request.params.id),
        operatorId: callerOf(request).userId,
      });
      return { finding: toFindingDto(finding!) };
    },
  );
}
