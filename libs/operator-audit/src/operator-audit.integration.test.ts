import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqlPool, type SqlPool } from '@atelier/db';
import { FailedPreconditionError, UnavailableError } from '@atelier/errors';
import { createTestDatabase, type TestDatabase } from '@atelier/testing';
import {
  auditedChange,
  insertAuditEntry,
  listAuditEntries,
  operatorAuditTableSql,
  requireOperatorActor,
  type OperatorActor,
} from './index.js';

// The audit table in a schema of its own, as a service's migration builds it, on a real Postgres.
const SCHEMA = 'audited';
let database: TestDatabase;
let pool: SqlPool;
const carol: OperatorActor = { subject: 'ops-carol', role: 'admin', route: 'PUT /admin-api/catalog/models/:code' };
const olga: OperatorActor = { subject: 'ops-olga', role: 'operator', route: 'POST /admin-api/jobs/:jobId/retry' };

beforeAll(async () => {
  database = await createTestDatabase();
  pool = createSqlPool({ databaseUrl: database.url, max: 4, applicationName: 'operator-audit-test' });
  await pool.query(`CREATE SCHEMA ${SCHEMA}`);
  for (const statement of operatorAuditTableSql(SCHEMA)) await pool.query(statement);
  await pool.query(`CREATE TABLE ${SCHEMA}.settings (name text PRIMARY KEY, value int NOT NULL)`);
  await pool.query(`INSERT INTO ${SCHEMA}.settings VALUES ('steps', 30)`);
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

const steps = async () => (await pool.query<{ value: number }>(`SELECT value FROM ${SCHEMA}.settings WHERE name = 'steps'`)).rows[0]!.value;
const entries = async (
  filter: { action?: string; subject?: string; target?: string; outcome?: string; pageSize?: number; beforeId?: string } = {},
) =>
  listAuditEntries(pool, SCHEMA, 'test', {
    pageSize: filter.pageSize ?? 0,
    beforeId: filter.beforeId ?? '',
    action: filter.action ?? '',
    subject: filter.subject ?? '',
    target: filter.target ?? '',
    outcome: filter.outcome ?? '',
    since: undefined,
  });

/** The edit the tests audit: steps set to `value`, its before and after. */
const setSteps = (value: number, actor: OperatorActor = carol) =>
  auditedChange(pool, SCHEMA, { action: 'settings.set', actor, target: 'setting:steps' }, async (tx) => {
    const before = (await tx.query<{ value: number }>(`SELECT value FROM ${SCHEMA}.settings WHERE name = 'steps' FOR UPDATE`)).rows[0]!;
    if (value < 0) throw new FailedPreconditionError('STEPS_NEGATIVE', 'steps cannot be negative');
    if (value === 13) throw new UnavailableError('the database went away');
    await tx.query(`UPDATE ${SCHEMA}.settings SET value = $1 WHERE name = 'steps'`, [value]);
    return { result: value, before: { steps: before.value }, after: { steps: value } };
  });

describe('an audited change', () => {
  it('commits with its entry: who, in which role, through which route, on what, before and after', async () => {
    expect(await setSteps(40)).toBe(40);
    expect(await steps()).toBe(40);
    const [entry] = (await entries({ action: 'settings.set', outcome: 'ok' })).entries;
    expect(entry).toMatchObject({
      service: 'test',
      action: 'settings.set',
      actor: carol,
      target: 'setting:steps',
      outcome: 'ok',
    });
    expect(JSON.parse(entry!.beforeJson!)).toEqual({ steps: 30 });
    expect(JSON.parse(entry!.afterJson!)).toEqual({ steps: 40 });
  });

  it('is written with its refusal when the action is turned down, and the change is rolled back', async () => {
    await expect(setSteps(-1)).rejects.toThrow('steps cannot be negative');
    expect(await steps()).toBe(40);
    const [refused] = (await entries({ outcome: 'STEPS_NEGATIVE' })).entries;
    expect(refused).toMatchObject({ action: 'settings.set', outcome: 'STEPS_NEGATIVE', beforeJson: undefined, afterJson: undefined });
  });

  it('leaves no entry when the change failed for a reason of the platform (nothing was decided)', async () => {
    const before = (await entries({ pageSize: 100 })).entries.length;
    await expect(setSteps(13)).rejects.toThrow('the database went away');
    expect((await entries({ pageSize: 100 })).entries.length).toBe(before);
  });

  it('rolls the change back when its entry cannot be written: no change without its trail', async () => {
    const tooLong: OperatorActor = { ...carol, route: 'x'.repeat(201) };
    await expect(setSteps(50, tooLong)).rejects.toThrow();
    expect(await steps()).toBe(40);
  });
});

describe('the audit table', () => {
  it('refuses every UPDATE, DELETE and TRUNCATE: nobody rewrites the trail, not even with SQL', async () => {
    await expect(pool.query(`UPDATE ${SCHEMA}.operator_audit SET outcome = 'ok'`)).rejects.toThrow(/append-only: UPDATE/);
    await expect(pool.query(`DELETE FROM ${SCHEMA}.operator_audit`)).rejects.toThrow(/append-only: DELETE/);
    await expect(pool.query(`TRUNCATE ${SCHEMA}.operator_audit`)).rejects.toThrow(/append-only: TRUNCATE/);
    expect((await entries({ pageSize: 100 })).entries.length).toBeGreaterThan(0);
  });

  it('lists newest first, filtered, and pages on the id without skipping or repeating', async () => {
    for (let i = 0; i < 5; i += 1) {
      await insertAuditEntry(pool, SCHEMA, { action: 'job.retry', actor: olga, target: `job:${i}`, outcome: 'ok' });
    }
    const retries = await entries({ action: 'job.retry' });
    expect(retries.entries.map((e) => e.target)).toEqual(['job:4', 'job:3', 'job:2', 'job:1', 'job:0']);
    expect((await entries({ subject: 'ops-olga', target: 'job:2' })).entries).toHaveLength(1);
    const seen: string[] = [];
    let beforeId = '';
    for (;;) {
      const page = await entries({ action: 'job.retry', pageSize: 2, beforeId });
      seen.push(...page.entries.map((e) => e.target));
      if (!page.hasMore) break;
      beforeId = page.entries.at(-1)!.id;
    }
    expect(seen).toEqual(['job:4', 'job:3', 'job:2', 'job:1', 'job:0']);
  });

  it('refuses a malformed query naming the field', async () => {
    await expect(entries({ beforeId: 'not-an-id' })).rejects.toThrow('query.before_id');
    await expect(entries({ pageSize: 101 })).rejects.toThrow('query.page_size');
    await expect(entries({ target: 't'.repeat(201) })).rejects.toThrow('query.target');
  });
});

describe('the actor', () => {
  it('is required, with a known role and a route, before anything is done', () => {
    expect(() => requireOperatorActor(undefined)).toThrow('actor: is required');
    expect(() => requireOperatorActor({ subject: 'ops', role: 'root', route: 'x' })).toThrow('actor.role');
    expect(() => requireOperatorActor({ subject: '', role: 'admin', route: 'x' })).toThrow('actor.subject');
    expect(() => requireOperatorActor({ subject: 'ops', role: 'admin', route: ' ' })).toThrow('actor.route');
    expect(requireOperatorActor({ subject: 'ops', role: 'cli', route: 'atelier-ops jobs cancel' })).toEqual({
      subject: 'ops',
      role: 'cli',
      route: 'atelier-ops jobs cancel',
    });
  });
});
