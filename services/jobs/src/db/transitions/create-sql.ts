import { inPipelinedTransaction, lockAllStatement, type PipelinedStatement, type Queryable, type SqlPool } from '@atelier/db';
import type { JobRow, OutboxSubjects } from '../job-row.js';
import type { QuotaAllowance, QuotaUsage } from '../../domain/quota.js';
import { quotaUsageSql } from '../quota-usage-sql.js';
import { CLAIMED_OUTBOX_JOIN, DISPATCH_OUTBOX, SUBMITTED_OUTBOX, productEventParamsAt, productEventValues } from './transition-sql.js';

export interface NewJob {
  id: string;
  userId: string;
  petId: string | null;
  jobType: string;
  mediaKind: string;
  queue: 'interactive' | 'background';
  modelId: string | null;
  styleId: string | null;
  inputAssetId: string | null;
  expectsOutput: boolean;
  prompt: string;
  negativePrompt: string;
  width: number | null;
  height: number | null;
  parameters: Record<string, unknown>;
  providerCode: string | null;
  providerModel: string | null;
  modelVersion: string | null;
  styleCode: string | null;
  maxAttempts: number;
  idempotencyKey: string;
  requestHash: Buffer;
  retryOfJobId: string | null;
  /** The creating request's trace (W3C headers); null when tracing is off. */
  traceContext: Record<string, string> | null;
  /** No worker may start the job later than this many seconds after its creation (domain/start-deadline.ts); null: no deadline. */
  startWithinSeconds: number | null;
  /** What the vendor is asked (domain/effective-parameters.ts); null only for a copy of a job created before migration 0012. */
  effectiveParameters: Record<string, unknown> | null;
  effectivePrompt: string | null;
  /** The user's own vendor key the job runs with (docs/credentials.md); absent: the platform's. */
  credential?: { mode: 'user_key'; id: string };
}

/**
 * What a create found: its job inserted; the job that already holds its (user, idempotency key),
 * from an earlier request or from the same batch; or neither, when that job committed while the
 * statement ran (invisible to its snapshot: the caller reads it by key).
 */
export type CreateOutcome = { inserted: true; job: JobRow } | { inserted: false; job: JobRow | null };

/** The per-user limits a create is counted against, with the job types that count. */
export interface QuotaCheck {
  jobTypes: readonly string[];
  dailyLimit: number;
  monthlyLimit: number;
  maxInFlight: number;
}

/**
 * queued from nothing: job rows with their creation events, dispatches and product events
 * (creation_job_submitted), one statement for a batch. With `quota`, each row's insert also needs its user's usage (counted in the same
 * statement by quotaUsageSql, which GetQuota reads too) to be under all three limits — daily,
 * monthly, in flight — the one place that rule is applied. Nor is a row of a user whose account's deletion was requested
 * (db/account-deletion-sql.ts takes the same lock). The usage CTE says which of these refuses a
 * row, its `refusal` column, and the insert takes only the rows it leaves null: the statement
 * answers why it refused, no second read. When several allowances ran out it names the one that
 * frees last: the month (its end is never before the day's), then the day, then the in-flight
 * slots (they free as soon as a job ends). The caller holds the lock of every user in the batch, taken before
 * this statement so that its snapshot sees every committed job of theirs, and gives each user at
 * most one row per statement (the rows of one statement do not see each other, so two of one
 * user would both count the same usage). The usage subquery ends in OFFSET 0 so that Postgres
 * counts each user once: pulled up into the CTE, its month and in-flight counts were evaluated
 * twice per row, once for the column and once for the refusal (EXPLAIN showed each SubPlan twice).
 */
function insertStatement(quota: boolean): string {
  return `WITH incoming AS (
            SELECT * FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::text[], $5::text[], $6::text[],
                                 $7::uuid[], $8::uuid[], $9::uuid[], $10::boolean[], $11::text[], $12::text[], $13::int[],
                                 $14::int[], $15::jsonb[], $16::text[], $17::text[], $18::text[], $19::text[], $20::smallint[],
                                 $21::text[], $22::bytea[], $23::uuid[], $24::text[], $27::jsonb[], $29::int[], $30::jsonb[], $31::text[],
                                 $35::text[], $36::uuid[]) WITH ORDINALITY
              AS t(id, user_id, pet_id, job_type, media_kind, queue, model_id, style_id, input_asset_id,
                   expects_output, prompt, negative_prompt, width, height, parameters, provider_code_snapshot,
                   provider_model_snapshot, model_version_snapshot, style_code_snapshot, max_attempts, idempotency_key,
                   request_hash, retry_of_job_id, actor, trace_context, start_within_seconds, effective_parameters,
                   effective_prompt, credential_mode, credential_id, n)),
          ${
            quota
              ? `usage AS (
            SELECT i.n AS usage_n, u.today, u.this_month, u.in_flight,
                   CASE WHEN EXISTS (SELECT 1 FROM jobs.account_deletions d WHERE d.user_id = i.user_id) THEN 'account_deleted'
                        WHEN u.this_month >= $40::int THEN 'monthly'
                        WHEN u.today >= $38 THEN 'daily'
                        WHEN u.in_flight >= $39 THEN 'in_flight'
                   END AS refusal
              FROM incoming i CROSS JOIN LATERAL (${quotaUsageSql('i.user_id', '$37::text[]', '$40::int')} OFFSET 0) u),`
              : ''
          }
          created AS (
            INSERT INTO jobs.generation_jobs
              (id, user_id, pet_id, job_type, media_kind, queue, model_id, style_id, input_asset_id, expects_output,
               prompt, negative_prompt, width, height, parameters, provider_code_snapshot, provider_model_snapshot,
               model_version_snapshot, style_code_snapshot, status, max_attempts, idempotency_key, request_hash,
               retry_of_job_id, next_attempt_at, trace_context, start_deadline_at, effective_parameters, effective_prompt,
               credential_mode, credential_id)
            SELECT id, user_id, pet_id, job_type, media_kind, queue, model_id, style_id, input_asset_id, expects_output,
                   prompt, negative_prompt, width, height, parameters, provider_code_snapshot, provider_model_snapshot,
                   model_version_snapshot, style_code_snapshot, 'queued', max_attempts, idempotency_key, request_hash,
                   retry_of_job_id, now(), trace_context, now() + start_within_seconds * interval '1 second',
                   effective_parameters, effective_prompt, credential_mode, credential_id
              FROM incoming
             ${quota ? `WHERE (SELECT u.refusal IS NULL FROM usage u WHERE u.usage_n = incoming.n)` : ''}
            ON CONFLICT (user_id, idempotency_key) DO NOTHING
            RETURNING *),
          event AS (
            INSERT INTO jobs.job_events (job_id, from_status, to_status, attempt, actor)
            SELECT c.id, NULL, 'queued', 0, i.actor FROM created c JOIN incoming i ON i.id = c.id),
          dispatch AS (${DISPATCH_OUTBOX('created', '$25', '$26', '$28')}),
          submitted AS (${SUBMITTED_OUTBOX('created', productEventParamsAt(32), '$28')}),
          outcome AS (
            SELECT i.n, true AS inserted, c.* FROM incoming i JOIN created c ON c.id = i.id
            UNION ALL
            SELECT i.n, false, same.* FROM incoming i
              JOIN created same ON same.user_id = i.user_id AND same.idempotency_key = i.idempotency_key AND same.id <> i.id
            UNION ALL
            SELECT i.n, false, earlier.* FROM incoming i
              JOIN jobs.generation_jobs earlier ON earlier.user_id = i.user_id AND earlier.idempotency_key = i.idempotency_key)
          SELECT i.n AS incoming_n, o.*, CASE WHEN o.inserted THEN claimed.claimed_outbox END AS claimed_outbox
                 ${quota ? ', u.today AS usage_today, u.this_month AS usage_this_month, u.in_flight AS usage_in_flight, CASE WHEN o.n IS NULL THEN u.refusal END AS refusal' : ''}
            FROM incoming i LEFT JOIN outcome o ON o.n = i.n${quota ? ' JOIN usage u ON u.usage_n = i.n' : ''}
            ${CLAIMED_OUTBOX_JOIN(['dispatch', 'submitted'], 'o')}
           ORDER BY i.n`;
}

const INSERT_JOBS = insertStatement(false);
const INSERT_JOBS_WITHIN_QUOTA = insertStatement(true);

function insertValues(jobs: readonly NewJob[], actors: readonly string[], subjects: OutboxSubjects): unknown[] {
  const column = <K extends keyof NewJob>(key: K) => jobs.map((job) => job[key]);
  return [
    column('id'),
    column('userId'),
    column('petId'),
    column('jobType'),
    column('mediaKind'),
    column('queue'),
    column('modelId'),
    column('styleId'),
    column('inputAssetId'),
    column('expectsOutput'),
    column('prompt'),
    column('negativePrompt'),
    column('width'),
    column('height'),
    jobs.map((job) => JSON.stringify(job.parameters)),
    column('providerCode'),
    column('providerModel'),
    column('modelVersion'),
    column('styleCode'),
    column('maxAttempts'),
    column('idempotencyKey'),
    column('requestHash'),
    column('retryOfJobId'),
    actors,
    subjects.dispatchInteractive,
    subjects.dispatchBackground,
    jobs.map((job) => (job.traceContext ? JSON.stringify(job.traceContext) : null)),
    subjects.claimFor ?? null,
    column('startWithinSeconds'),
    jobs.map((job) => (job.effectiveParameters ? JSON.stringify(job.effectiveParameters) : null)),
    column('effectivePrompt'),
    ...productEventValues(subjects),
    jobs.map((job) => job.credential?.mode ?? 'platform_key'),
    jobs.map((job) => job.credential?.id ?? null),
  ];
}

type OutcomeRow = JobRow & {
  incoming_n: string;
  n: string | null;
  inserted: boolean | null;
  usage_today?: number;
  usage_this_month?: number;
  usage_in_flight?: number;
  refusal?: CreateRefusal | null;
};

/**
 * The row is the job: its few extra columns (the batch position, the usage) ride along unread. A
 * copy without them cost an object of some sixty properties per create, 4 % of what jobs
 * allocates end to end; nothing serialises a job row whole.
 */
function outcomeOf(row: OutcomeRow): CreateOutcome {
  if (row.inserted === null) return { inserted: false, job: null };
  return { inserted: row.inserted, job: row };
}

/** Creates many jobs (of types the quota does not count) in one statement; one outcome per job, in order. */
export async function createJobs(
  db: Queryable,
  jobs: readonly NewJob[],
  actors: readonly string[],
  subjects: OutboxSubjects,
): Promise<CreateOutcome[]> {
  if (jobs.length === 0) return [];
  const { rows } = await db.query<OutcomeRow>({
    name: 'jobs.create_jobs',
    text: INSERT_JOBS,
    values: insertValues(jobs, actors, subjects),
  });
  return rows.map(outcomeOf);
}

/** Why the statement refused a job: the account's deletion was requested, or an allowance ran out. */
export type CreateRefusal = 'account_deleted' | QuotaAllowance;

/** What a create counted against its user's quota found: its outcome, the usage it was counted against, and why it was refused. */
export interface WithinQuota {
  outcome: CreateOutcome;
  usage: QuotaUsage;
  /** Set when no job was inserted and the key names no earlier one; null otherwise. */
  refusal: CreateRefusal | null;
}

/**
 * Creates jobs counted against their users' quotas (L3), in one transaction of its own: takes
 * every user's lock first, in one statement and a fixed order (no deadlock with another batch),
 * so that concurrent creates of one user, in this batch or another, count each other's rows;
 * then runs the insert statement once per round, where round k holds each user's k-th job — a
 * later round sees the rows of the earlier ones (same transaction), so a user's second job is
 * counted after their first. Each job is inserted only under all of its user's limits; one
 * user's refusal is their outcome alone (no job, no earlier job), never the batch's failure.
 * Answers one result per job, in order.
 *
 * No statement needs another's answer, so the transaction is sent pipelined: BEGIN, the locks,
 * every round and COMMIT in one write and one wait for Postgres (inPipelinedTransaction). Each
 * insert still starts after the locks are held, and its snapshot with it (READ COMMITTED).
 */
export async function createJobsWithinQuota(
  pool: SqlPool,
  jobs: readonly NewJob[],
  actors: readonly string[],
  quota: QuotaCheck,
  subjects: OutboxSubjects,
): Promise<WithinQuota[]> {
  if (jobs.length === 0) return [];
  const { statements, rounds } = withinQuotaStatements(jobs, actors, quota, subjects);
  const [, ...answers] = await inPipelinedTransaction(pool, statements);
  const results: WithinQuota[] = new Array(jobs.length);
  rounds.forEach((round, r) => {
    (answers[r]!.rows as OutcomeRow[]).forEach((row, k) => {
      results[round[k]!] = {
        outcome: outcomeOf(row),
        usage: { today: row.usage_today!, thisMonth: row.usage_this_month!, inFlight: row.usage_in_flight! },
        refusal: row.refusal ?? null,
      };
    });
  });
  return results;
}

/**
 * The statements of createJobsWithinQuota's transaction, in order: the users' locks, then one
 * insert per round; `rounds` holds the indexes into `jobs` of each round's rows. Apart for
 * bench:scale, which explains them.
 */
export function withinQuotaStatements(
  jobs: readonly NewJob[],
  actors: readonly string[],
  quota: QuotaCheck,
  subjects: OutboxSubjects,
): { statements: PipelinedStatement[]; rounds: number[][] } {
  const rounds: number[][] = [];
  const seen = new Map<string, number>();
  jobs.forEach((job, i) => {
    const round = seen.get(job.userId) ?? 0;
    seen.set(job.userId, round + 1);
    (rounds[round] ??= []).push(i);
  });
  const locks = lockAllStatement(
    'jobs.quota',
    jobs.map((job) => job.userId),
    KEEP_GENERIC_PLANS,
  );
  const inserts = rounds.map((round) => ({
    name: 'jobs.create_jobs_within_quota',
    text: INSERT_JOBS_WITHIN_QUOTA,
    values: [
      ...insertValues(
        round.map((i) => jobs[i]!),
        round.map((i) => actors[i]!),
        subjects,
      ),
      quota.jobTypes,
      quota.dailyLimit,
      quota.maxInFlight,
      quota.monthlyLimit,
    ],
  }));
  return { statements: [locks, ...inserts], rounds };
}

/**
 * The quota statement takes its batch as arrays, and given arrays Postgres plans every execution
 * anew: a custom plan knows their length, the generic one guesses ten rows and looks dearer. That
 * planning cost more than the statement itself (bench:pipeline's stylize creates: 1.7 ms of
 * planning against 0.85 ms of execution per batch, on Postgres's log). The generic plan is the
 * same index plan — what the quota reads is chosen by the user and now(), not by how many jobs
 * the batch holds — so the transaction keeps it, set with its users' locks in one round trip
 * (transaction-local: the connection's next transaction plans as usual).
 */
const KEEP_GENERIC_PLANS = { plan_cache_mode: 'force_generic_plan' };

/** createJobsWithinQuota for one job. No job and no earlier job in its outcome means refused, and `refusal` says why. */
export async function createJobWithinQuota(
  pool: SqlPool,
  job: NewJob,
  actor: string,
  quota: QuotaCheck,
  subjects: OutboxSubjects,
): Promise<WithinQuota> {
  return (await createJobsWithinQuota(pool, [job], [actor], quota, subjects))[0]!;
}
