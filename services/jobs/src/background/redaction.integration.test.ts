import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '@atelier/logging';
import type pg from 'pg';
import type { JobRow } from '../db/job-row.js';
import { createJobs } from '../db/transitions/create-sql.js';
import type { InputImageOutcome, InputImageRemover } from '../peers/input-image-remover.js';
import { migratedJobsDatabase, testOutboxSubjects } from '../test-support/jobs-database.js';
import { newCanaryJob } from '../test-support/new-job.js';
import { RetentionPruner, type RetentionPrunerOptions, type RetentionTable } from './retention-pruner.js';

// Retention of what users wrote and gave, on the real schema: ended jobs aged by SQL the way time
// ages them, then the pruner. Each test has a database of its own. The periods are this file's
// own (two job types with different ones); media is a recording stand-in that answers per image
// what the real one would (services/gateway/src/retention.e2e.test.ts runs the real one).
const logger = createLogger({ service: 'redaction-test', level: 'silent' });
const subjects = testOutboxSubjects();
let database: Awaited<ReturnType<typeof migratedJobsDatabase>>;
let pool: pg.Pool;

beforeEach(async () => {
  database = await migratedJobsDatabase();
  pool = database.pool;
}, 60_000);
afterEach(async () => {
  await database?.drop();
});

const PERIODS = {
  redactInputs: { jobTypes: ['image.stylize', 'image.upscale'], days: [30, 10] },
  deleteInputImage: { jobTypes: ['image.stylize', 'image.upscale'], days: [30, 7] },
};

function newPruner(options: Partial<RetentionPrunerOptions> = {}): RetentionPruner {
  return new RetentionPruner({
    pool,
    logger,
    intervalMs: 3_600_000,
    outboxRetentionMs: 24 * 3_600_000,
    jobEventsRetentionDays: 0,
    batchSize: 1_000,
    redactionBatchSize: 1_000,
    batchPauseMs: 0,
    periods: PERIODS,
    ...options,
  });
}

/** A job only ever uses its own user's images (CreateJob checks the owner). */
const USER = 'retention-user';

interface Made {
  jobType?: string;
  inputAssetId?: string | null;
  /** Ended (cancelled) this many days ago; absent: still queued. */
  endedDaysAgo?: number;
}

/** A job as a user writes one: prompts, a style preset, text and numbers among its parameters. */
async function makeJob({ jobType = 'image.stylize', inputAssetId = null, endedDaysAgo }: Made): Promise<string> {
  const job = newCanaryJob({
    userId: USER,
    jobType,
    inputAssetId,
    prompt: 'my cat Mochi on the sofa at 12 Elm Street',
    negativePrompt: 'no dogs',
    parameters: { strength: 0.6, seed: 42, caption: 'Mochi', tags: ['sofa'] },
    effectiveParameters: { strength: 0.6, seed: 42, caption: 'Mochi', tags: ['sofa'], guidance: 7.5, safe: true },
    effectivePrompt: 'my cat Mochi on the sofa at 12 Elm Street, watercolor',
  });
  await createJobs(pool, [job], ['test'], subjects);
  if (endedDaysAgo !== undefined) {
    await pool.query(`UPDATE jobs.generation_jobs SET status = 'cancelled', completed_at = now() WHERE id = $1`, [job.id]);
    await age(job.id, endedDaysAgo);
  }
  return job.id;
}

/** Moves an ended job's times back; terminal rows never change, so this session skips triggers. */
async function age(jobId: string, days: number): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SET session_replication_role = replica');
    await client.query(
      `UPDATE jobs.generation_jobs SET created_at = created_at - make_interval(days => $2), updated_at = updated_at - make_interval(days => $2),
              completed_at = completed_at - make_interval(days => $2), next_attempt_at = next_attempt_at - make_interval(days => $2)
        WHERE id = $1`,
      [jobId, days],
    );
  } finally {
    await client.query('SET session_replication_role = DEFAULT');
    client.release();
  }
}

async function jobRow(id: string): Promise<JobRow> {
  const { rows } = await pool.query<JobRow>(`SELECT * FROM jobs.generation_jobs WHERE id = $1`, [id]);
  return rows[0]!;
}

const RETENTION_COLUMNS = [
  'prompt',
  'negative_prompt',
  'effective_prompt',
  'parameters',
  'effective_parameters',
  'redaction_version',
  'redacted_at',
  'input_removed_at',
  'input_kept_at',
] as const;
const withoutRetentionColumns = (row: JobRow) =>
  Object.fromEntries(Object.entries(row).filter(([column]) => !(RETENTION_COLUMNS as readonly string[]).includes(column)));

/** Media as retention meets it: an outcome per image (deleted unless told otherwise), every question recorded. */
function recordingMedia(outcomes: Record<string, InputImageOutcome | Error> = {}): InputImageRemover & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    async removeExpiredInput(assetId) {
      asked.push(assetId);
      const outcome = outcomes[assetId] ?? 'deleted';
      if (outcome instanceof Error) throw outcome;
      return outcome;
    },
  };
}

describe('retention - redaction of what users wrote', () => {
  it("redacts ended jobs past their type's period (version 1: prompts emptied, numbers and booleans kept); the rest of the row, and jobs not yet due, stay", async () => {
    const dueStylize = await makeJob({ endedDaysAgo: 31 });
    const recentStylize = await makeJob({ endedDaysAgo: 20 });
    const dueUpscale = await makeJob({ jobType: 'image.upscale', endedDaysAgo: 11 }); // its type's period is 10 days
    const recentUpscale = await makeJob({ jobType: 'image.upscale', endedDaysAgo: 9 });
    const queued = await makeJob({});
    await age(queued, 90); // a queued job is never redacted, however old
    const before = await jobRow(dueStylize);

    const result = await newPruner().runOnce();

    expect(result!.redacted_jobs).toBe(2);
    const after = await jobRow(dueStylize);
    expect(after).toMatchObject({
      prompt: '',
      negative_prompt: '',
      effective_prompt: '',
      parameters: { strength: 0.6, seed: 42 },
      effective_parameters: { strength: 0.6, seed: 42, guidance: 7.5, safe: true },
      redaction_version: 1,
    });
    expect(Date.now() - after.redacted_at!.getTime()).toBeLessThan(60_000);
    expect(withoutRetentionColumns(after), 'the row keeps its shape and everything else').toEqual(withoutRetentionColumns(before));
    expect((await jobRow(dueUpscale)).redaction_version).toBe(1);
    for (const id of [recentStylize, recentUpscale, queued]) {
      expect(await jobRow(id)).toMatchObject({
        prompt: 'my cat Mochi on the sofa at 12 Elm Street',
        redaction_version: null,
        redacted_at: null,
      });
    }

    expect((await newPruner().runOnce())!.redacted_jobs, 'a redacted job is not redacted again').toBe(0);
    expect((await jobRow(dueStylize)).redacted_at).toEqual(after.redacted_at);
  });

  it('lets only retention change an ended job: any other change, a redaction without its version, or undoing one is refused', async () => {
    const id = await makeJob({ endedDaysAgo: 40 });
    const refused = (sql: string) => expect(pool.query(sql, [id])).rejects.toThrow(/can no longer change/);
    await refused(`UPDATE jobs.generation_jobs SET error_message = 'x' WHERE id = $1`);
    await refused(`UPDATE jobs.generation_jobs SET prompt = '' WHERE id = $1`);
    await refused(`UPDATE jobs.generation_jobs SET prompt = '', redaction_version = 1, redacted_at = now(), progress = 5 WHERE id = $1`);
    await newPruner().runOnce();
    await refused(`UPDATE jobs.generation_jobs SET redaction_version = 2, redacted_at = now() WHERE id = $1`);
    await refused(`UPDATE jobs.generation_jobs SET prompt = 'back' WHERE id = $1`);
  });

  it('works in batches of at most the batch size, and a run stopped midway is continued by the next', async () => {
    const ids = await Promise.all(Array.from({ length: 7 }, (_, i) => makeJob({ endedDaysAgo: 40 + i })));
    const controller = new AbortController();
    const batches: number[] = [];
    const onPruned = (table: RetentionTable, count: number) => {
      if (table !== 'redacted_jobs') return;
      batches.push(count);
      controller.abort(); // the process is stopped after the first batch
    };

    expect((await newPruner({ redactionBatchSize: 2, onPruned }).runOnce(controller.signal))!.redacted_jobs).toBe(2);
    const first = await pool.query(`SELECT count(*)::int AS n FROM jobs.generation_jobs WHERE redaction_version = 1`);
    expect(first.rows[0].n).toBe(2);

    const rest: number[] = [];
    const result = await newPruner({
      redactionBatchSize: 2,
      onPruned: (table, count) => table === 'redacted_jobs' && rest.push(count),
    }).runOnce();
    expect(result!.redacted_jobs).toBe(5);
    expect(rest).toEqual([2, 2, 1]);
    const rows = await Promise.all(ids.map(jobRow));
    expect(rows.every((row) => row.redaction_version === 1 && row.prompt === '')).toBe(true);
  });
});

describe('retention - input images', () => {
  it('has media delete the input images of jobs ended past their period that no newer job keeps, and writes the outcome on the jobs', async () => {
    const [alone, sharedWithRecent, sharedWithQueued, inPost, ownerDeleted, upscaleInput] = Array.from({ length: 6 }, () => randomUUID());
    const aloneJobs = [await makeJob({ inputAssetId: alone, endedDaysAgo: 45 }), await makeJob({ inputAssetId: alone, endedDaysAgo: 35 })];
    const oldWithRecent = await makeJob({ inputAssetId: sharedWithRecent, endedDaysAgo: 60 });
    await makeJob({ inputAssetId: sharedWithRecent, endedDaysAgo: 5 }); // a newer job keeps the image
    await makeJob({ inputAssetId: sharedWithQueued, endedDaysAgo: 60 });
    await makeJob({ inputAssetId: sharedWithQueued }); // still queued: keeps it
    const postJob = await makeJob({ inputAssetId: inPost, endedDaysAgo: 40 });
    const goneJob = await makeJob({ inputAssetId: ownerDeleted, endedDaysAgo: 40 });
    const upscaleJob = await makeJob({ jobType: 'image.upscale', inputAssetId: upscaleInput, endedDaysAgo: 8 }); // upscale: 7 days
    const notDue = await makeJob({ inputAssetId: randomUUID(), endedDaysAgo: 29 });
    const media = recordingMedia({ [inPost!]: 'in_use_by_post', [ownerDeleted!]: 'gone' });

    const result = await newPruner({ inputImages: media }).runOnce();

    expect(new Set(media.asked)).toEqual(new Set([alone, inPost, ownerDeleted, upscaleInput]));
    expect(media.asked).toHaveLength(4); // an image two jobs used is asked about once
    expect(result!.input_images).toBe(2); // `gone` was deleted by its owner, not by retention
    for (const id of [...aloneJobs, goneJob, upscaleJob]) {
      const row = await jobRow(id);
      expect(row.input_removed_at, id).not.toBeNull();
      expect(row.input_asset_id, 'the job still says which image it was given').not.toBeNull();
    }
    for (const id of [oldWithRecent, postJob, notDue]) expect((await jobRow(id)).input_removed_at).toBeNull();
    expect((await jobRow(postJob)).input_kept_at).not.toBeNull();

    // A post's image is asked about again a period later, not at every run; nothing else is due.
    const again = recordingMedia();
    expect((await newPruner({ inputImages: again }).runOnce())!.input_images).toBe(0);
    expect(again.asked).toEqual([]);
  });

  it('records nothing when media cannot answer, and asks again on the next run', async () => {
    const [first, second] = [randomUUID(), randomUUID()];
    const jobs = [await makeJob({ inputAssetId: first, endedDaysAgo: 50 }), await makeJob({ inputAssetId: second, endedDaysAgo: 40 })];

    const down = recordingMedia({ [first]: new Error('media unavailable') });
    expect((await newPruner({ inputImages: down }).runOnce())!.input_images).toBe(0);
    expect(down.asked, 'the step ends at the first failure').toEqual([first]);
    for (const id of jobs) expect((await jobRow(id)).input_removed_at).toBeNull();

    const back = recordingMedia();
    expect((await newPruner({ inputImages: back }).runOnce())!.input_images).toBe(2);
    expect(back.asked).toEqual([first, second]);
  });
});
