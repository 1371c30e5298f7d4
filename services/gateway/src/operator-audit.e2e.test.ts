import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MobileApi, startTestPlatform, type TestPlatform } from '@atelier/testing';
import { testTokenKey } from './test-support/gateway-harness.js';

// The operators' audit log end to end: every service a real process. An operator cancels and
// retries a user's job, an admin edits a model of the catalog; the audit lists each action with
// who, in which role, through which route, on what, how it ended and, for the edit, the entry
// before and after — from the logs jobs and catalog wrote in the transactions of the changes.
let platform: TestPlatform;
let user: MobileApi;
let olga: MobileApi; // operator
let adam: MobileApi; // admin
let db: pg.Client;

interface AuditEntry {
  id: string;
  occurredAt: string;
  service: string;
  action: string;
  operator: string;
  role: string;
  route: string;
  target: string;
  outcome: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}
interface AuditPage {
  items: AuditEntry[];
  nextCursor: string | null;
}
interface CatalogModel {
  id: string;
  code: string;
  mediaKind: string;
  displayName: string;
  providerCode: string;
  providerModel: string;
  modelVersion: string;
  jobType: string;
  enabled: boolean;
  sortOrder: number;
  defaultParameters: Record<string, unknown>;
}

beforeAll(async () => {
  const key = await testTokenKey();
  platform = await startTestPlatform({ workers: 1, providerEnv: { PROVIDER_SIM_LATENCY_MS: '300' }, gateway: key.gatewayEnv });
  user = new MobileApi(platform.gatewayUrl!, await key.sign(`audited-user-${process.pid}`));
  olga = user.as(await key.sign('ops-olga', { roles: ['operator'] }));
  adam = user.as(await key.sign('ops-adam', { roles: ['admin'] }));
  db = new pg.Client({ connectionString: platform.database.url });
  await db.connect();
}, 180_000);

afterAll(async () => {
  await db?.end();
  await platform?.stop();
});

const audit = async (query = '') => {
  const answer = await adam.call<AuditPage>('GET', `/admin-api/audit${query}`);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body;
};

describe('the audit log', () => {
  let jobId: string;
  let retryId: string;

  it("records an operator's cancel and retry of a user's job, and a refused retry with its reason", async () => {
    const photo = await user.uploadPhoto();
    // A prediction that takes long: the job is queued or running when the operator cancels it.
    const created = await user.createJob(await user.stylizeBody(photo, 'my cat, slowly #sim-latency=60000'), 'audited-job');
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    jobId = created.body.job.id;
    const cancelled = await olga.call<{ job: { status: string } }>('POST', `/admin-api/jobs/${jobId}/cancel`);
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    const retried = await olga.call<{ job: { id: string } }>('POST', `/admin-api/jobs/${jobId}/retry`);
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    retryId = retried.body.job.id;
    // The copy is queued or running: not retryable. The refusal is audited too.
    expect((await olga.call('POST', `/admin-api/jobs/${retryId}/retry`)).status).toBe(422);
    expect((await olga.call('POST', `/admin-api/jobs/${retryId}/cancel`)).status).toBe(200);

    const { items } = await audit(`?service=jobs&target=job:${jobId}`);
    expect(items.map((e) => e.action)).toEqual(['job.retry', 'job.cancel']);
    const [retry, cancel] = items;
    expect(retry).toMatchObject({
      service: 'jobs',
      operator: 'ops-olga',
      role: 'operator',
      route: 'POST /admin-api/jobs/:jobId/retry',
      target: `job:${jobId}`,
      outcome: 'ok',
      after: { retryJobId: retryId, status: 'queued' },
    });
    expect(cancel).toMatchObject({ operator: 'ops-olga', role: 'operator', route: 'POST /admin-api/jobs/:jobId/cancel', outcome: 'ok' });
    expect(['queued', 'running']).toContain(cancel!.before!.status);
    expect(cancel!.after).toEqual({ status: 'cancelled' });

    const copy = await audit(`?target=job:${retryId}`);
    expect(copy.items.map((e) => [e.action, e.outcome])).toEqual([
      ['job.cancel', 'ok'],
      ['job.retry', 'JOB_NOT_RETRYABLE'],
    ]);
    expect(copy.items[1]).toMatchObject({ before: null, after: null });
  });

  it("records an admin's catalog edit with the entry before and after", async () => {
    const catalog = await adam.call<{ models: CatalogModel[] }>('GET', '/admin-api/catalog?mediaKind=image');
    const model = catalog.body.models.find((m) => m.code === 'patbond-v1')!;
    const edited = {
      mediaKind: model.mediaKind,
      displayName: model.displayName,
      providerCode: model.providerCode,
      providerModel: model.providerModel,
      modelVersion: model.modelVersion,
      jobType: model.jobType,
      sortOrder: model.sortOrder,
      defaultParameters: { ...model.defaultParameters, steps: 41 },
    };
    const answer = await adam.call('PUT', `/admin-api/catalog/models/${model.code}`, { body: edited });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);

    const [entry] = (await audit('?service=catalog&action=catalog.model.upsert')).items;
    expect(entry).toMatchObject({
      service: 'catalog',
      operator: 'ops-adam',
      role: 'admin',
      route: 'PUT /admin-api/catalog/models/:code',
      target: 'model:patbond-v1',
      outcome: 'ok',
    });
    expect(entry!.before).toMatchObject({ code: 'patbond-v1', defaultParameters: model.defaultParameters });
    expect(entry!.after).toMatchObject({ code: 'patbond-v1', defaultParameters: { ...model.defaultParameters, steps: 41 } });

    // Disabling by id is audited under the model's code too.
    expect((await adam.call('POST', `/admin-api/catalog/models/${model.id}/disable`)).status).toBe(200);
    expect((await adam.call('POST', `/admin-api/catalog/models/${model.id}/enable`)).status).toBe(200);
    const toggles = await audit('?target=model:patbond-v1');
    expect(toggles.items.map((e) => e.action).slice(0, 3)).toEqual([
      'catalog.model.enable',
      'catalog.model.disable',
      'catalog.model.upsert',
    ]);
    expect(toggles.items[1]).toMatchObject({ before: { enabled: true }, after: { enabled: false } });
  });

  it("merges every service's log newest first and pages it without skipping or repeating", async () => {
    const all = await audit('?limit=100');
    const ids = all.items.map((e) => e.id);
    expect(new Set(all.items.map((e) => e.service))).toEqual(new Set(['jobs', 'catalog']));
    expect(ids).toEqual([...ids].sort().reverse());
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page: AuditPage = await audit(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      paged.push(...page.items.map((e) => e.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(paged).toEqual(ids);
  });

  it('is read by admins only, and no route or statement changes it', async () => {
    expect((await olga.call('GET', '/admin-api/audit')).status).toBe(403);
    expect((await user.call('GET', '/admin-api/audit')).status).toBe(403);
    for (const method of ['PUT', 'PATCH', 'DELETE', 'POST']) {
      expect((await adam.call(method, '/admin-api/audit')).status, method).toBe(404);
    }
    const count = async () => Number((await db.query(`SELECT count(*) FROM jobs.operator_audit`)).rows[0].count);
    const before = await count();
    await expect(db.query(`DELETE FROM jobs.operator_audit`)).rejects.toThrow(/append-only/);
    await expect(db.query(`UPDATE catalog.operator_audit SET outcome = 'ok'`)).rejects.toThrow(/append-only/);
    expect(await count()).toBe(before);
  });

  it('refuses a malformed filter or cursor with 400, never a 500', async () => {
    for (const query of [
      '?cursor=not-an-id',
      '?since=yesterday',
      '?since=2026-12-31T23:59:60Z',
      '?since=0000-01-01T00:00:00Z',
      '?service=media',
      `?target=${'t'.repeat(201)}`,
      '?limit=101',
    ]) {
      const answer = await adam.call('GET', `/admin-api/audit${query}`);
      expect(answer.status, query).toBe(400);
    }
  });
});
