import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqlPool, inTransaction, uuidv7, type SqlPool } from '@atelier/db';
import { createLogger } from '@atelier/logging';
import { createTestDatabase, waitUntil, type TestDatabase } from '@atelier/testing';
import { insertDeliveriesForEvent } from '../db/delivery-sql.js';
import { insertEndpointWithinLimit } from '../db/endpoint-sql.js';
import { createWebhooksOrm, migrateWebhooks } from '../db/webhooks-orm.js';
import { newEndpointSecret } from '../domain/signature.js';
import { parseAllowedHosts } from '../ssrf/target-check.js';
import { startDeliverySender } from './delivery-sender.js';

let database: TestDatabase;
let pool: SqlPool;
let server: Server;
let port: number;
const fastArrivals: number[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  const orm = await createWebhooksOrm(database.url);
  await migrateWebhooks(orm, database.url);
  await orm.close();
  pool = createSqlPool({ databaseUrl: database.url, applicationName: 'webhooks-sender-test' });
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      if (request.url === '/slow') return; // answers never: the sender's timeout ends it
      fastArrivals.push(Date.now());
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await pool?.end();
  await database?.drop();
});

const endpoint = (userId: string, path: string) =>
  inTransaction(pool, (client) =>
    insertEndpointWithinLimit(
      client,
      { id: uuidv7(), userId, url: `http://127.0.0.1:${port}${path}`, eventTypes: [], description: '', secret: newEndpointSecret() },
      10,
    ),
  );

const SLOW_TIMEOUT_MS = 6_000;

describe('delivery sender - slots, not batches', () => {
  it('keeps delivering to a fast receiver while a slow one holds its slot', async () => {
    await endpoint('slow-user', '/slow');
    await endpoint('fast-user', '/fast');
    await insertDeliveriesForEvent(pool, { eventId: 'event:slow', eventType: 'job.succeeded', userId: 'slow-user', body: '{}' });
    // The slow attempt starts after this: a fast arrival before it plus the timeout came while it hung.
    const senderStarted = Date.now();
    const sender = startDeliverySender({
      pool,
      logger: createLogger({ service: 'webhooks-test', level: 'silent' }),
      allowedHosts: parseAllowedHosts('127.0.0.1'),
      retryScheduleMs: [60_000],
      // Long enough that a loaded machine (CI runs test files side by side) still fits five fast
      // deliveries inside it: the claim is that they all land while the slow one hangs.
      timeoutMs: SLOW_TIMEOUT_MS,
      leaseMs: 60_000,
      pollIntervalMs: 50,
      batchSize: 2,
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      for (let i = 0; i < 5; i += 1) {
        await insertDeliveriesForEvent(pool, { eventId: `event:fast-${i}`, eventType: 'job.succeeded', userId: 'fast-user', body: '{}' });
        sender.wake();
      }
      await waitUntil(() => fastArrivals.length === 5, {
        timeoutMs: SLOW_TIMEOUT_MS,
        what: 'five fast deliveries while the slow one hangs',
      });
      expect(Math.max(...fastArrivals) - senderStarted).toBeLessThan(SLOW_TIMEOUT_MS);
      // The receiver has the fifth; the sender records it a moment after its answer.
      const statuses = async () =>
        (await pool.query(`SELECT status, count(*)::int AS n FROM webhooks.deliveries GROUP BY status ORDER BY status`)).rows;
      await waitUntil(async () => (await statuses()).some((row) => row.status === 'delivered' && row.n === 5), {
        timeoutMs: 2_000,
        what: 'the fifth fast delivery recorded',
      });
      expect(await statuses()).toEqual([
        { status: 'delivered', n: 5 },
        { status: 'pending', n: 1 },
      ]);
    } finally {
      await sender.stop();
    }
    // Stopping waited for the slow attempt to end (its timeout) and recorded it.
    const attempts = await pool.query(`SELECT status_code, error FROM webhooks.delivery_attempts a
      JOIN webhooks.deliveries d ON d.id = a.delivery_id WHERE d.event_id = 'event:slow'`);
    expect(attempts.rows).toEqual([{ status_code: 0, error: expect.stringMatching(new RegExp(`no answer within ${SLOW_TIMEOUT_MS} ms`)) }]);
  });
});
