import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSqlPool, inTransaction, uuidv7, type SqlPool } from '@atelier/db';
import { createTestDatabase, type TestDatabase } from '@atelier/testing';
import { newEndpointSecret } from '../domain/signature.js';
import { claimDueDeliveries, insertDeliveriesForEvent, recordAttempt, replayUserDelivery, selectAttempts } from './delivery-sql.js';
import { insertEndpointWithinLimit } from './endpoint-sql.js';
import { createWebhooksOrm, migrateWebhooks } from './webhooks-orm.js';

let database: TestDatabase;
let pool: SqlPool;

beforeAll(async () => {
  database = await createTestDatabase();
  const orm = await createWebhooksOrm(database.url);
  await migrateWebhooks(orm, database.url);
  await orm.close();
  pool = createSqlPool({ databaseUrl: database.url, applicationName: 'webhooks-sql-test' });
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

beforeEach(async () => {
  await pool.query('TRUNCATE webhooks.endpoints CASCADE');
});

const endpoint = (userId: string, eventTypes: string[] = []) =>
  inTransaction(pool, (client) =>
    insertEndpointWithinLimit(
      client,
      { id: uuidv7(), userId, url: 'https://hooks.example.com/x', eventTypes, description: '', secret: newEndpointSecret() },
      10,
    ),
  );
const event = (eventId: string, userId = 'u1', eventType = 'job.succeeded') => ({ eventId, eventType, userId, body: '{"type":"x"}' });
const outcome = (deliveryId: string, attempt: number, delivered: boolean, retryInMs?: number) => ({
  deliveryId,
  attempt,
  startedAt: new Date(),
  durationMs: 5,
  statusCode: delivered ? 200 : 500,
  error: delivered ? undefined : 'the endpoint answered 500',
  delivered,
  retryInMs,
});

describe('delivery sql - fan-out, claims, leases and settlement', () => {
  it('creates one delivery per interested endpoint, once however often the event comes', async () => {
    await endpoint('u1');
    await endpoint('u1', ['job.failed']);
    await endpoint('u2');
    expect(await insertDeliveriesForEvent(pool, event('event:a:succeeded:v3'))).toBe(1);
    expect(await insertDeliveriesForEvent(pool, event('event:a:succeeded:v3'))).toBe(0);
    expect(await insertDeliveriesForEvent(pool, event('event:b:failed:v2', 'u1', 'job.failed'))).toBe(2);
    const { rows } = await pool.query('SELECT count(*)::int AS n FROM webhooks.deliveries');
    expect(rows[0].n).toBe(3);
  });

  it('never lets two claimers take the same delivery', async () => {
    await endpoint('u1');
    for (let i = 0; i < 20; i += 1) await insertDeliveriesForEvent(pool, event(`event:${i}`));
    const claims = await Promise.all(Array.from({ length: 5 }, () => claimDueDeliveries(pool, 6, 60_000)));
    const ids = claims.flat().map((claim) => claim.id);
    expect(ids).toHaveLength(20);
    expect(new Set(ids).size).toBe(20);
    expect(await claimDueDeliveries(pool, 10, 60_000)).toEqual([]);
  });

  it('makes a claimed delivery due again when its attempt is never recorded (a crashed sender)', async () => {
    await endpoint('u1');
    await insertDeliveriesForEvent(pool, event('event:crash'));
    const [first] = await claimDueDeliveries(pool, 10, 200);
    expect(first).toMatchObject({ attempt_count: 1, schedule_step: 1 });
    expect(await claimDueDeliveries(pool, 10, 200)).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const [again] = await claimDueDeliveries(pool, 10, 60_000);
    expect(again).toMatchObject({ id: first!.id, attempt_count: 2 });
    // The crashed sender comes back late: its record keeps the attempt but cannot settle the newer claim.
    await inTransaction(pool, (client) => recordAttempt(client, outcome(first!.id, 1, true)));
    const { rows } = await pool.query('SELECT status FROM webhooks.deliveries WHERE id = $1', [first!.id]);
    expect(rows[0].status).toBe('pending');
    await inTransaction(pool, (client) => recordAttempt(client, outcome(again!.id, 2, true)));
    const settled = await pool.query('SELECT status, next_attempt_at FROM webhooks.deliveries WHERE id = $1', [first!.id]);
    expect(settled.rows[0]).toMatchObject({ status: 'delivered', next_attempt_at: null });
    expect((await selectAttempts(pool, [first!.id])).map((attempt) => attempt.attempt)).toEqual([1, 2]);
  });

  it('retries on the schedule, fails when it is spent, and a replay starts it again with the same id', async () => {
    const row = await endpoint('u1');
    await insertDeliveriesForEvent(pool, event('event:retry'));
    const [claim] = await claimDueDeliveries(pool, 10, 60_000);
    await inTransaction(pool, (client) => recordAttempt(client, outcome(claim!.id, 1, false, 50)));
    expect(await claimDueDeliveries(pool, 10, 60_000)).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 80));
    const [retry] = await claimDueDeliveries(pool, 10, 60_000);
    expect(retry).toMatchObject({ id: claim!.id, attempt_count: 2, schedule_step: 2 });
    await inTransaction(pool, (client) => recordAttempt(client, outcome(claim!.id, 2, false, undefined)));
    const failed = await pool.query('SELECT status FROM webhooks.deliveries WHERE id = $1', [claim!.id]);
    expect(failed.rows[0].status).toBe('failed');
    expect(await replayUserDelivery(pool, 'someone-else', claim!.id)).toBeUndefined();
    const replayed = await replayUserDelivery(pool, row!.user_id, claim!.id);
    expect(replayed).toMatchObject({ id: claim!.id, status: 'pending', schedule_step: 0 });
    const [third] = await claimDueDeliveries(pool, 10, 60_000);
    expect(third).toMatchObject({ id: claim!.id, attempt_count: 3, schedule_step: 1 });
  });

  it('limits endpoints per user, under concurrent creates too', async () => {
    const create = () =>
      inTransaction(pool, (client) =>
        insertEndpointWithinLimit(
          client,
          {
            id: uuidv7(),
            userId: 'racer',
            url: 'https://hooks.example.com/x',
            eventTypes: [],
            description: '',
            secret: newEndpointSecret(),
          },
          3,
        ),
      );
    const results = await Promise.all(Array.from({ length: 8 }, create));
    expect(results.filter(Boolean)).toHaveLength(3);
  });
});
