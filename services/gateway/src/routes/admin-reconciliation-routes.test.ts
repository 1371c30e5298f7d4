import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { jobsReconciliationV1 } from '@atelier/contracts';
import { NotFoundError } from '@atelier/errors';
import type { FastifyInstance } from 'fastify';
import type { GatewayPeers } from '../gateway-context.js';
import { gatewayOverFakePeers } from '../test-support/gateway-over-fake-peers.js';

// The reconciliation findings routes over a fake jobs peer: the filters as they reach jobs, the
// JSON of a finding, who acknowledges, and the refusals before any call.
const { ReconciliationFindingKind: Kind } = jobsReconciliationV1;
const finding: jobsReconciliationV1.ReconciliationFinding = {
  id: 7,
  providerCode: 'sim',
  kind: Kind.JOB_WITH_TWO_BILLABLE_PREDICTIONS,
  vendorId: '',
  jobId: '019ae5c1-2f3a-7000-8000-00000000a1b2',
  detail: '2 succeeded predictions: pred_a (key 019ae5c1-2f3a-7000-8000-00000000a1b2), pred_b (key 019ae5c1-2f3a-7000-8000-00000000a1b2:2)',
  runId: '019ae5c1-2f3a-7000-8000-00000000c0de',
  foundAt: new Date('2026-12-03T21:16:02.000Z'),
  acknowledgedAt: undefined,
  acknowledgedBy: undefined,
};
const asked: {
  list: jobsReconciliationV1.ListReconciliationFindingsRequest[];
  ack: jobsReconciliationV1.AcknowledgeReconciliationFindingRequest[];
} = {
  list: [],
  ack: [],
};
const peers = {
  reconciliation: {
    listReconciliationFindings: async (request: jobsReconciliationV1.ListReconciliationFindingsRequest) => {
      asked.list.push(request);
      return {
        findings: [finding],
        nextPageToken: '7',
        unacknowledgedTotal: 3,
        coverage: [
          { providerCode: 'sim', lastFinishedAt: new Date('2026-12-03T21:16:02.000Z'), coveredUntil: new Date('2026-12-03T21:14:00.000Z') },
        ],
      };
    },
    acknowledgeReconciliationFinding: async (request: jobsReconciliationV1.AcknowledgeReconciliationFindingRequest) => {
      asked.ack.push(request);
      if (request.findingId !== 7) throw new NotFoundError('reconciliation finding');
      return { finding: { ...finding, acknowledgedAt: new Date('2026-12-03T21:20:00.000Z'), acknowledgedBy: request.operatorId } };
    },
  },
} as unknown as GatewayPeers;

let app: FastifyInstance;
let admin: string;
let user: string;

beforeAll(async () => {
  const gateway = await gatewayOverFakePeers(peers);
  app = gateway.app;
  [admin, user] = await Promise.all([gateway.token('ops-carol', ['admin']), gateway.token('alice')]);
});

afterAll(async () => {
  await app?.close();
});

beforeEach(() => {
  asked.list.length = 0;
  asked.ack.length = 0;
});

const call = (method: 'GET' | 'POST', url: string, token = admin) =>
  app.inject({ method, url, headers: { authorization: `Bearer ${token}` } });

describe('admin reconciliation routes', () => {
  it('lists findings with the filters jobs is asked for, as JSON', async () => {
    const response = await call(
      'GET',
      '/admin-api/reconciliation/findings?provider=sim&kind=job_with_two_billable_predictions&open=true&limit=5&cursor=12',
    );
    expect(response.statusCode).toBe(200);
    expect(asked.list).toEqual([
      { providerCode: 'sim', kind: Kind.JOB_WITH_TWO_BILLABLE_PREDICTIONS, unacknowledgedOnly: true, pageSize: 5, pageToken: '12' },
    ]);
    expect(response.json()).toEqual({
      items: [
        {
          id: '7',
          provider: 'sim',
          kind: 'job_with_two_billable_predictions',
          vendorId: '',
          jobId: finding.jobId,
          detail: finding.detail,
          runId: finding.runId,
          foundAt: '2026-12-03T21:16:02.000Z',
          acknowledgedAt: null,
          acknowledgedBy: null,
        },
      ],
      nextCursor: '7',
      openTotal: 3,
      coverage: [{ provider: 'sim', lastFinishedAt: '2026-12-03T21:16:02.000Z', coveredUntil: '2026-12-03T21:14:00.000Z' }],
    });
  });

  it('acknowledges as the calling operator; an unknown finding is 404', async () => {
    const response = await call('POST', '/admin-api/reconciliation/findings/7/acknowledge');
    expect(response.statusCode).toBe(200);
    expect(asked.ack).toEqual([
      {
        findingId: 7,
        operatorId: 'ops-carol',
        actor: { subject: 'ops-carol', role: 'admin', route: 'POST /admin-api/reconciliation/findings/:id/acknowledge' },
      },
    ]);
    expect(response.json().finding).toMatchObject({ acknowledgedBy: 'ops-carol', acknowledgedAt: '2026-12-03T21:20:00.000Z' });
    expect((await call('POST', '/admin-api/reconciliation/findings/8/acknowledge')).statusCode).toBe(404);
  });

  it('refuses bad input with 400 and non-admins with 403, before asking jobs', async () => {
    for (const query of ['?kind=double', '?provider=Not%20A%20Code', '?limit=0', '?cursor=abc', '?open=maybe']) {
      const response = await call('GET', `/admin-api/reconciliation/findings${query}`);
      expect(response.statusCode, query).toBe(400);
    }
    expect((await call('POST', '/admin-api/reconciliation/findings/0/acknowledge')).statusCode).toBe(400);
    expect((await call('POST', '/admin-api/reconciliation/findings/99999999999999999/acknowledge')).statusCode).toBe(400);
    expect((await call('GET', '/admin-api/reconciliation/findings', user)).statusCode).toBe(403);
    expect(asked.list).toEqual([]);
    expect(asked.ack).toEqual([]);
  });
});
