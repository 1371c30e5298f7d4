import type { FastifyInstance } from 'fastify';
import type { commonV1 } from '@atelier/contracts';
import { isUuid } from '@atelier/validation';
import type { GatewayContext } from '../gateway-context.js';
import { dateTimeParam } from '../http/date-time-param.js';
import { badRequest } from '../http/http-error.js';
import { nullableString, object, pageQuery, responses } from '../http/schemas.js';

/** The services that keep an audit log of operator actions (each in its own schema, libs/operator-audit). */
const AUDITED_SERVICES = ['jobs', 'catalog'] as const;
type AuditedService = (typeof AUDITED_SERVICES)[number];

const dateTime = { type: 'string', format: 'date-time' } as const;
const snapshot = {
  type: ['object', 'null'],
  additionalProperties: true,
  description: 'the target before or after an edit, as its service stores it; null where the action has none',
} as const;

const auditEntrySchema = object({
  id: { type: 'string', description: 'a UUIDv7: entries of every service sort by it in time order' },
  occurredAt: dateTime,
  service: { type: 'string', enum: [...AUDITED_SERVICES] },
  action: { type: 'string', description: 'what was done, e.g. job.retry, catalog.model.upsert (docs/operator-audit.md lists them)' },
  operator: { type: 'string', description: "the operator's subject" },
  role: { type: 'string', description: 'the role they acted in (viewer, operator, admin, super_admin; cli for atelier-ops)' },
  route: { type: 'string', description: 'the console route or the atelier-ops command' },
  target: { type: 'string', description: 'what it was done to, e.g. job:<id>, model:<code>, budget:sim/*' },
  outcome: { type: 'string', description: 'ok, or the reason it was refused (e.g. JOB_NOT_RETRYABLE)' },
  before: snapshot,
  after: snapshot,
});

const example = {
  id: '019ae5d0-4b1c-7a3e-9c2d-5f6a7b8c9d0e',
  occurredAt: '2026-12-04T09:12:44.318Z',
  service: 'catalog',
  action: 'catalog.model.upsert',
  operator: 'ops-carol',
  role: 'admin',
  route: 'PUT /admin-api/catalog/models/:code',
  target: 'model:patbond-v1',
  outcome: 'ok',
  before: { code: 'patbond-v1', displayName: 'Patbond-V1', enabled: true, sortOrder: 10, defaultParameters: { steps: 30 } },
  after: { code: 'patbond-v1', displayName: 'Patbond-V1', enabled: true, sortOrder: 10, defaultParameters: { steps: 40 } },
};

interface AuditQuery {
  service?: AuditedService;
  action?: string;
  operator?: string;
  target?: string;
  outcome?: string;
  since?: string;
  cursor?: string;
  limit: number;
}

function parsedSnapshot(json: string | undefined): object | null {
  return json === undefined ? null : (JSON.parse(json) as object);
}

function toAuditEntryDto(entry: commonV1.AuditEntry) {
  return {
    id: entry.id,
    occurredAt: entry.occurredAt!.toISOString(),
    service: entry.service,
    action: entry.action,
    operator: entry.actor?.subject ?? '',
    role: entry.actor?.role ?? '',
    route: entry.actor?.route ?? '',
    target: entry.target,
    outcome: entry.outcome,
    before: parsedSnapshot(entry.beforeJson),
    after: parsedSnapshot(entry.afterJson),
  };
}

/**
 * The operators' audit log (docs/operator-audit.md): every operator action of every service that
 * keeps one, newest first, with filters. Each service answers a page of its own log; the pages
 * merge by id (UUIDv7, time order), and the cursor is the last entry's id, which every log pages on.
 * Read-only: no route changes or deletes an entry.
 */
export function registerAdminAuditRoute(app: FastifyInstance, { peers }: GatewayContext): void {
  const text = (maxLength: number, description: string) => ({ type: 'string', minLength: 1, maxLength, description });
  app.get<{ Querystring: AuditQuery }>(
    '/admin-api/audit',
    {
      schema: {
        operationId: 'adminListAuditEntries',
        tags: ['operators'],
        summary:
          "Operators' actions (who, in which role, through which route, on what, with what outcome, the entry before and after an edit), newest first",
        querystring: pageQuery({
          service: { type: 'string', enum: [...AUDITED_SERVICES], description: "one service's log; absent: all" },
          action: text(64, 'exactly this action, e.g. job.retry'),
          operator: text(128, "exactly this operator's subject"),
          target: text(200, 'exactly this target, e.g. job:<id> or model:<code>'),
          outcome: text(64, 'exactly this outcome: ok, or a refusal reason'),
          since: { ...dateTime, description: 'entries at or after this time' },
        }),
        response: responses({
          200: {
            ...object({ items: { type: 'array', items: auditEntrySchema }, nextCursor: nullableString }),
            examples: [{ items: [example], nextCursor: null }],
          },
        }),
      },
    },
    async (request) => {
      const q = request.query;
      if (q.cursor !== undefined && !isUuid(q.cursor)) throw badRequest('querystring.cursor must be the nextCursor of a previous page');
      const query: commonV1.AuditQuery = {
        pageSize: q.limit,
        beforeId: q.cursor ?? '',
        action: q.action ?? '',
        subject: q.operator ?? '',
        target: q.target ?? '',
        outcome: q.outcome ?? '',
        since: dateTimeParam(q.since, 'querystring.since'),
      };
      const services = q.service ? [q.service] : AUDITED_SERVICES;
      const pages = await Promise.all(
        services.map((service) =>
          service === 'jobs' ? peers.jobsAdmin.listAuditEntries({ query }) : peers.catalog.listAuditEntries({ query }),
        ),
      );
      const merged = pages.flatMap((page) => page.entries).sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
      const items = merged.slice(0, q.limit);
      const more = merged.length > q.limit || pages.some((page) => page.hasMore);
      return { items: items.map(toAuditEntryDto), nextCursor: more && items.length > 0 ? items.at(-1)!.id : null };
    },
  );
}
