// The data bench/scale.ts measures against: jobs.generation_jobs filled to a size with a history
// that looks like a service that has run for weeks, written set-based (INSERT … SELECT
// generate_series), fast, and within every CHECK of the schema.
//
// Every row is a function of its number n, so a fill is repeatable and needs no client-side
// data. The state-machine trigger fires on UPDATE only, so terminal rows are inserted as they end
// up — no trigger is disabled; the CHECK constraints (one branch per status, leases, attempts,
// snapshots, outbox locks) all hold for what is written here.
import type pg from 'pg';

export interface FillShape {
  /** Users the history is spread over: user of job n is `scale-user-<n mod users>`. */
  users: number;
  /** Days of created_at the jobs of one fill step are spread over, oldest first. */
  days: number;
  /** Subjects as the relay would have published them. */
  dispatchSubject: { interactive: string; background: string };
  eventPrefix: string;
}

/** A user of the filled history (the bench's own callers are some of them). */
export const scaleUser = (k: number) => `scale-user-${k}`;

/**
 * A UUIDv7 (as the service makes them: time first) from a timestamp and a number: 48 bits of
 * epoch milliseconds, version 7, then n in the random bits, so ids are unique and time-ordered.
 */
const uuidV7Sql = (at: string, n: string) => `(
  lpad(to_hex((extract(epoch FROM ${at}) * 1000)::bigint), 12, '0') || '7' || substr(lpad(to_hex(${n}), 18, '0'), 1, 3)
  || '8' || substr(lpad(to_hex(${n}), 18, '0'), 4, 15))::uuid`;

/** A fraction in [0, 1) spread evenly over n (Knuth's multiplicative hash): deterministic "random". */
const spreadSql = (n: string, multiplier: number) => `((${n}::bigint * ${multiplier}) % 4294967296) / 4294967296.0`;

/**
 * Terminal jobs n ∈ [from, to) of a fill step spanning [stepFrom, stepTo): created from `days`
 * ago until a minute ago in order of n (ids, events and outbox rows in time order, as in
 * production), 85 % succeeded, 10 % failed, 5 % cancelled; one in seven took a second attempt.
 * Each gets its job_events (2–5, about 3.3 on average) and its outbox rows (dispatch and
 * lifecycle event), all published. One statement: the events and the outbox are written from
 * the rows the insert returns.
 */
export async function insertTerminalJobs(
  db: pg.Client,
  shape: FillShape,
  range: { from: number; to: number; stepFrom: number; stepTo: number },
): Promise<number> {
  const { rows } = await db.query<{ jobs: number; events: number; outbox: number }>(
    `WITH s AS (
       SELECT n,
              now() - interval '1 minute'
                - make_interval(secs => (1 - (n - $3::bigint)::float8 / ($4::bigint - $3::bigint)) * $6::float8 * 86400) AS created_at,
              ${spreadSql('n', 2246822519)} AS r_status,
              ${spreadSql('n', 3266489917)} AS r_kind,
              ${spreadSql('n', 668265263)} AS r_retry
         FROM generate_series($1::bigint, $2::bigint - 1) AS n),
     t AS (
       SELECT s.*,
              CASE WHEN r_status < 0.85 THEN 'succeeded' WHEN r_status < 0.95 THEN 'failed' ELSE 'cancelled' END AS status,
              r_kind < 0.8 AS stylize,
              r_retry < 0.143 AS retried,
              r_status >= 0.975 AS cancelled_queued
         FROM s),
     j AS (
       SELECT t.*,
              ${uuidV7Sql('t.created_at', 't.n')} AS id,
              'scale-user-' || (t.n % $5::bigint) AS user_id,
              CASE WHEN t.status = 'cancelled' AND t.cancelled_queued THEN NULL ELSE t.created_at + interval '2 seconds' END AS started_at,
              t.created_at + interval '12 seconds' AS completed_at,
              CASE WHEN t.status = 'cancelled' AND t.cancelled_queued THEN 0 WHEN t.retried THEN 2 ELSE 1 END AS attempts,
              CASE WHEN t.status <> 'failed' THEN NULL WHEN t.r_kind < 0.05 THEN 'INTERNAL_ERROR' WHEN t.r_kind < 0.4 THEN 'CONTENT_SAFETY_REJECTED'
                   ELSE 'PROVIDER_FAILED' END AS error_code
         FROM t),
     jobs_in AS (
       INSERT INTO jobs.generation_jobs
         (id, user_id, job_type, media_kind, queue, priority, model_id, style_id, input_asset_id, output_asset_id, expects_output,
          prompt, parameters, provider_code_snapshot, provider_model_snapshot, model_version_snapshot, style_code_snapshot,
          status, progress, attempt_count, max_attempts, provider_request_id, error_code, error_message, idempotency_key, request_hash,
          next_attempt_at, created_at, updated_at, started_at, completed_at, version)
       SELECT j.id, j.user_id,
              CASE WHEN j.stylize THEN 'image.stylize' ELSE 'image.upscale' END, 'image',
              CASE WHEN j.stylize THEN 'interactive' ELSE 'background' END, CASE WHEN j.stylize THEN 10 ELSE 0 END,
              '00000000-0000-7000-8000-00000000a001', CASE WHEN j.stylize THEN '00000000-0000-7000-8000-00000000b001'::uuid END,
              ${uuidV7Sql('j.created_at', 'j.n + 1000000000')},
              CASE WHEN j.status = 'succeeded' THEN ${uuidV7Sql('j.completed_at', 'j.n + 2000000000')} END, true,
              CASE WHEN j.stylize THEN 'a cat in a garden, watercolor' ELSE '' END,
              CASE WHEN j.stylize THEN '{"strength": 0.6}'::jsonb ELSE '{"scale": 2}'::jsonb END,
              'sim', CASE WHEN j.stylize THEN 'stylizer' ELSE 'upscaler' END, '1', CASE WHEN j.stylize THEN 'watercolor' END,
              j.status, CASE WHEN j.status = 'succeeded' THEN 100 ELSE 0 END, j.attempts, CASE WHEN j.stylize THEN 3 ELSE 4 END,
              CASE WHEN j.started_at IS NOT NULL AND coalesce(j.error_code, '') <> 'INTERNAL_ERROR' THEN 'pred-' || j.n END,
              j.error_code, CASE WHEN j.error_code IS NOT NULL THEN 'The generation did not succeed.' END,
              'fill-' || j.n, sha256(convert_to(j.n::text, 'UTF8')),
              j.created_at, j.created_at, j.completed_at, j.started_at, j.completed_at, 1 + 2 * j.attempts
         FROM j
        ORDER BY j.n
       RETURNING id, user_id, status, queue, attempt_count, error_code, created_at, started_at, completed_at, version, job_type),
     events_in AS (
       INSERT INTO jobs.job_events (job_id, from_status, to_status, attempt, actor, error_code, occurred_at)
       SELECT e.job_id, e.from_status, e.to_status, e.attempt, e.actor, e.error_code, e.occurred_at
         FROM (SELECT ji.id AS job_id, ev.*
                 FROM jobs_in ji
                 CROSS JOIN LATERAL (VALUES
                   (1, NULL, 'queued', 0, 'user:' || ji.user_id, NULL, ji.created_at),
                   (2, CASE WHEN ji.started_at IS NOT NULL THEN 'queued' END, 'running', 1, 'worker:scale-fill', NULL, ji.started_at),
                   (3, CASE WHEN ji.attempt_count = 2 THEN 'running' END, 'queued', 1, 'worker:scale-fill', 'PROVIDER_UNAVAILABLE',
                       ji.started_at + interval '3 seconds'),
                   (4, CASE WHEN ji.attempt_count = 2 THEN 'queued' END, 'running', 2, 'worker:scale-fill', NULL, ji.started_at + interval '5 seconds'),
                   (5, CASE WHEN ji.started_at IS NOT NULL THEN 'running' ELSE 'queued' END, ji.status, ji.attempt_count,
                       CASE WHEN ji.status = 'cancelled' THEN 'user:' || ji.user_id ELSE 'worker:scale-fill' END, ji.error_code, ji.completed_at)
                 ) AS ev(k, from_status, to_status, attempt, actor, error_code, occurred_at)
                WHERE ev.k = 1 OR ev.from_status IS NOT NULL) e
        ORDER BY e.occurred_at, e.job_id, e.k
       RETURNING 1),
     outbox_in AS (
       INSERT INTO jobs.outbox (aggregate_id, event_type, subject, dedupe_key, payload, status, available_at, created_at, published_at)
       SELECT o.* FROM (
         SELECT ji.id, 'job.dispatch', CASE ji.queue WHEN 'interactive' THEN $7 ELSE $8 END, 'dispatch:' || ji.id || ':v1',
                jsonb_build_object('jobId', ji.id, 'jobType', ji.job_type, 'attempt', 1), 'published',
                ji.created_at, ji.created_at, ji.created_at + interval '5 milliseconds'
           FROM jobs_in ji
         UNION ALL
         SELECT ji.id, 'job.' || ji.status, $9 || ji.status, 'event:' || ji.id || ':' || ji.status || ':v' || ji.version,
                jsonb_build_object('jobId', ji.id, 'eventType', 'job.' || ji.status), 'published',
                ji.completed_at, ji.completed_at, ji.completed_at + interval '5 milliseconds'
           FROM jobs_in ji) AS o(aggregate_id, event_type, subject, dedupe_key, payload, status, available_at, created_at, published_at)
        ORDER BY o.published_at
       RETURNING 1)
     SELECT (SELECT count(*)::int FROM jobs_in) AS jobs, (SELECT count(*)::int FROM events_in) AS events,
            (SELECT count(*)::int FROM outbox_in) AS outbox`,
    [
      range.from,
      range.to,
      range.stepFrom,
      range.stepTo,
      shape.users,
      shape.days,
      shape.dispatchSubject.interactive,
      shape.dispatchSubject.background,
      shape.eventPrefix,
    ],
  );
  return rows[0]!.jobs;
}

/**
 * Tops the live part up to `queued` queued and `running` running jobs (the in-flight set is
 * bounded by users × QUOTA_MAX_IN_FLIGHT, not by the history, so it is the same at every size),
 * spread over random users, with their events and a published dispatch each. Queued jobs are
 * due (claimable); running ones hold a lease for a day, so the reaper leaves them alone.
 */
export async function topUpInFlight(
  db: pg.Client,
  shape: FillShape,
  target: { queued: number; running: number; firstN: number },
): Promise<{ queued: number; running: number }> {
  const { rows } = await db.query<{ queued: number; running: number }>(
    `SELECT count(*) FILTER (WHERE status = 'queued')::int AS queued, count(*) FILTER (WHERE status = 'running')::int AS running
       FROM jobs.generation_jobs WHERE status IN ('queued', 'running')`,
  );
  const missing = { queued: Math.max(0, target.queued - rows[0]!.queued), running: Math.max(0, target.running - rows[0]!.running) };
  const total = missing.queued + missing.running;
  if (total === 0) return missing;
  await db.query(
    `WITH s AS (
       SELECT n, n - $1::bigint < $2::bigint AS queued,
              now() - make_interval(secs => ${spreadSql('n', 2654435761)} * 50) AS created_at,
              ${spreadSql('n', 3266489917)} < 0.8 AS stylize,
              'scale-user-' || ((${spreadSql('n', 668265263)} * $4::float8)::bigint) AS user_id
         FROM generate_series($1::bigint, $1::bigint + $3::bigint - 1) AS n),
     j AS (SELECT s.*, ${uuidV7Sql('s.created_at', 's.n')} AS id FROM s),
     jobs_in AS (
       INSERT INTO jobs.generation_jobs
         (id, user_id, job_type, media_kind, queue, priority, model_id, style_id, input_asset_id, expects_output, prompt, parameters,
          provider_code_snapshot, provider_model_snapshot, model_version_snapshot, style_code_snapshot, status, progress,
          attempt_count, max_attempts, idempotency_key, request_hash, next_attempt_at, created_at, updated_at,
          started_at, lease_owner, lease_expires_at, version)
       SELECT j.id, j.user_id, CASE WHEN j.stylize THEN 'image.stylize' ELSE 'image.upscale' END, 'image',
              CASE WHEN j.stylize THEN 'interactive' ELSE 'background' END, CASE WHEN j.stylize THEN 10 ELSE 0 END,
              '00000000-0000-7000-8000-00000000a001', CASE WHEN j.stylize THEN '00000000-0000-7000-8000-00000000b001'::uuid END,
              ${uuidV7Sql('j.created_at', 'j.n + 1000000000')}, true,
              CASE WHEN j.stylize THEN 'a dog on a beach, watercolor' ELSE '' END,
              CASE WHEN j.stylize THEN '{"strength": 0.6}'::jsonb ELSE '{"scale": 2}'::jsonb END,
              'sim', CASE WHEN j.stylize THEN 'stylizer' ELSE 'upscaler' END, '1', CASE WHEN j.stylize THEN 'watercolor' END,
              CASE WHEN j.queued THEN 'queued' ELSE 'running' END, CASE WHEN j.queued THEN 0 ELSE 40 END,
              CASE WHEN j.queued THEN 0 ELSE 1 END, CASE WHEN j.stylize THEN 3 ELSE 4 END,
              'live-' || j.n, sha256(convert_to('live-' || j.n, 'UTF8')), j.created_at, j.created_at, j.created_at,
              CASE WHEN NOT j.queued THEN j.created_at + interval '1 second' END,
              CASE WHEN NOT j.queued THEN 'scale-fill-worker' END,
              CASE WHEN NOT j.queued THEN now() + interval '1 day' END,
              CASE WHEN j.queued THEN 1 ELSE 2 END
         FROM j ORDER BY j.n
       RETURNING id, user_id, status, queue, created_at, started_at),
     events_in AS (
       INSERT INTO jobs.job_events (job_id, from_status, to_status, attempt, actor, occurred_at)
       SELECT ji.id, NULL, 'queued', 0, 'user:' || ji.user_id, ji.created_at FROM jobs_in ji
       UNION ALL
       SELECT ji.id, 'queued', 'running', 1, 'worker:scale-fill-worker', ji.started_at FROM jobs_in ji WHERE ji.status = 'running'),
     outbox_in AS (
       INSERT INTO jobs.outbox (aggregate_id, event_type, subject, dedupe_key, payload, status, available_at, created_at, published_at)
       SELECT ji.id, 'job.dispatch', CASE ji.queue WHEN 'interactive' THEN $5 ELSE $6 END, 'dispatch:' || ji.id || ':v1',
              jsonb_build_object('jobId', ji.id, 'attempt', 1), 'published', ji.created_at, ji.created_at,
              ji.created_at + interval '5 milliseconds'
         FROM jobs_in ji)
     SELECT count(*) FROM jobs_in`,
    [target.firstN, missing.queued, total, shape.users, shape.dispatchSubject.interactive, shape.dispatchSubject.background],
  );
  return missing;
}

/** A few outbox rows the broker refused for good (dead): they stay until an operator replays them. */
export async function insertDeadOutboxRows(db: pg.Client, shape: FillShape, count: number, tag: string): Promise<void> {
  await db.query(
    `INSERT INTO jobs.outbox (aggregate_id, event_type, subject, dedupe_key, payload, status, attempt_count, available_at, created_at, last_error)
     SELECT gen_random_uuid(), 'job.dispatch', $1, 'dead:' || $3 || ':' || n, '{}'::jsonb, 'dead', 10,
            now() - n * interval '1 hour', now() - n * interval '1 hour', 'the broker refused the message'
       FROM generate_series(1, $2::int) AS n`,
    [shape.dispatchSubject.interactive, count, tag],
  );
}
