import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@atelier/testing';
import { UserRefKey, productEventSql, userRefSql } from './product-events.js';

// The user_ref SQL makes (jobs' transitions write their events in SQL) is the one code makes
// (media and community write theirs from code): a user is one user_ref across the services.

let database: TestDatabase;
let db: pg.Client;

beforeAll(async () => {
  database = await createTestDatabase();
  db = new pg.Client({ connectionString: database.url });
  await db.connect();
});

afterAll(async () => {
  await db?.end();
  await database?.drop();
});

describe('product events - user_ref in SQL', () => {
  it('equals UserRefKey.refOf for keys shorter and longer than a SHA-256 block, and for any user id', async () => {
    const keys = [
      'k'.repeat(32),
      'é'.repeat(40),
      'x'.repeat(64),
      'a-key-longer-than-one-block-of-sixty-four-bytes-is-hashed-first-0123456789',
    ];
    const users = ['user-1', 'alice@example.com', 'ü-nicode-💡', 'a'.repeat(128)];
    for (const secret of keys) {
      const key = new UserRefKey(secret);
      for (const user of users) {
        const { rows } = await db.query<{ ref: string }>(`SELECT ${userRefSql('$1::text', '$2')} AS ref`, [user, key.sqlPads()]);
        expect(rows[0]!.ref, `${secret.length}-character key, user ${user}`).toBe(key.refOf(user));
      }
    }
  });

  it('makes the whole ProductEvent as code does: id, name, time with milliseconds in UTC, user_ref, props without nulls', async () => {
    const key = new UserRefKey('k'.repeat(32));
    const { rows } = await db.query<{ event: unknown }>(
      `SELECT ${productEventSql(
        {
          name: `'creation_job_submitted'`,
          aggregateId: `'job-1'`,
          userId: `'user-1'`,
          occurredAt: `'2026-03-04 06:06:07.089+01'::timestamptz`,
          props: `jsonb_build_object('job_id', 'job-1', 'error_code', NULL)`,
        },
        '$1',
      )} AS event`,
      [key.sqlPads()],
    );
    expect(rows[0]!.event).toEqual({
      eventId: 'creation_job_submitted:job-1',
      eventName: 'creation_job_submitted',
      occurredAt: '2026-03-04T05:06:07.089Z',
      userRef: key.refOf('user-1'),
      props: { job_id: 'job-1' },
    });
  });
});
