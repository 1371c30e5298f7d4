import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaDrift } from '@atelier/orm';
import { JOB_TYPE_PATTERN } from '@atelier/job-types';
import { columnLengthsOf, createTestDatabase, type TestDatabase } from '@atelier/testing';
import {
  MAX_EFFECTIVE_PROMPT_LENGTH,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  MAX_MODEL_VERSION_LENGTH,
  MAX_NEGATIVE_PROMPT_LENGTH,
  MAX_PROMPT_LENGTH,
  MAX_PROVIDER_MODEL_LENGTH,
  MAX_USER_ID_LENGTH,
} from '@atelier/validation';
import { createJobsOrm, migrateJobs } from '../jobs-orm.js';

let database: TestDatabase;
let orm: Awaited<ReturnType<typeof createJobsOrm>>;
let db: pg.Client;
beforeAll(async () => {
  database = await createTestDatabase();
  orm = await createJobsOrm(database.url);
  await migrateJobs(orm, database.url);
  db = new pg.Client({ connectionString: database.url });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await orm?.close();
  await database?.drop();
});

describe('jobs entities - the schema described in code', () => {
  it('match, table for table, the schema the migrations build', async () => {
    expect(await schemaDrift(orm)).toEqual([]);
  });

  it("hold what users send to @atelier/validation's limits: the migrations' column sizes name the same numbers", async () => {
    expect(await columnLengthsOf(db, 'jobs.generation_jobs')).toMatchObject({
      user_id: MAX_USER_ID_LENGTH,
      prompt: MAX_PROMPT_LENGTH,
      negative_prompt: MAX_NEGATIVE_PROMPT_LENGTH,
      effective_prompt: MAX_EFFECTIVE_PROMPT_LENGTH,
      idempotency_key: MAX_IDEMPOTENCY_KEY_LENGTH,
      provider_model_snapshot: MAX_PROVIDER_MODEL_LENGTH,
      model_version_snapshot: MAX_MODEL_VERSION_LENGTH,
    });
    const { rows } = await db.query<{ definition: string }>(
      `SELECT pg_get_constraintdef(oid) AS definition FROM pg_constraint WHERE conname = 'generation_jobs_idempotency_key_format'`,
    );
    expect(rows[0]?.definition).toContain(`(char_length((idempotency_key)::text) <= ${MAX_IDEMPOTENCY_KEY_LENGTH})`);
    expect(await columnLengthsOf(db, 'jobs.quota_hits')).toMatchObject({ user_id: MAX_USER_ID_LENGTH });
    expect(await columnLengthsOf(db, 'jobs.outbox_replays')).toMatchObject({ operator_id: MAX_USER_ID_LENGTH });
    expect(await columnLengthsOf(db, 'jobs.account_deletions')).toMatchObject({ user_id: MAX_USER_ID_LENGTH });
    expect(await columnLengthsOf(db, 'jobs.reconciliation_findings')).toMatchObject({ acknowledged_by: MAX_USER_ID_LENGTH });
  });
  it('refuses a job type exactly where JOB_TYPE_PATTERN does, though it checks without a regular expression', async () => {
    const { rows } = await db.query<{ expression: string }>(
      `SELECT pg_get_expr(conbin, conrelid) AS expression FROM pg_constraint WHERE conname = 'generation_jobs_job_type_format'`,
    );
    const expression = rows[0]!.expression;
    expect(expression).not.toContain('~');
    const accepts = async (jobType: string) => {
      // The constraint as Postgres stores it, with the candidate in place of the column.
      const check = expression.replaceAll('(job_type)::text', '$1::text').replaceAll('job_type', '$1::text');
      return (await db.query<{ accepted: boolean }>(`SELECT coalesce(${check}, false) AS accepted`, [jobType])).rows[0]!.accepted;
    };
    const candidates = [
      ...['ab', 'system.canary', 'image.stylize', 'video.x_2', 'a.', 'z9', 'a'.repeat(64), `q${'_.0'.repeat(21)}`],
      ...['', 'a', 'A', 'Ab', '1ab', '_ab', '.ab', 'ab-c', 'ab c', 'abC', 'ab\n', ' ab', 'ab ', 'äb', 'aé', 'a'.repeat(65)],
    ];
    for (const candidate of candidates) expect(await accepts(candidate), JSON.stringify(candidate)).toBe(JOB_TYPE_PATTERN.test(candidate));
  });
});
