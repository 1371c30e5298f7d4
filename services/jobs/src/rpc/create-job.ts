import type { jobsV1 } from '@atelier/contracts';
import { MicroBatcher } from '@atelier/batching';
import { uuidv7 } from '@atelier/db';
import { requestHash } from '@atelier/encoding';
import { AlreadyExistsError, ResourceExhaustedError, isTransientError } from '@atelier/errors';
import { retryWithBackoff } from '@atelier/lifecycle';
import type { Handler } from '@atelier/grpc';
import { currentTraceCarrier } from '@atelier/telemetry';
import { requireIdempotencyKey, requireUserId } from '@atelier/validation';
import type { JobDefinition } from '../definitions/index.js';
import { selectJobByIdempotencyKey, selectJobEvents } from '../db/job-sql.js';
import type { JobRow } from '../db/job-row.js';
import { effectiveInput } from '../domain/effective-parameters.js';
import { normaliseCommand } from '../domain/job-command.js';
import { quotaRefusal, type QuotaAllowance } from '../domain/quota.js';
import type { JobsContext } from '../jobs-context.js';
import { toJobMessage } from './job-mapper.js';
import { quotaCheckOf } from './quota-check.js';
import { resolveAgainstPeers } from '../peers/peer-validation.js';
import { jobCredentialOf } from './job-credential-check.js';
import { announce } from '../announce/announce.js';
import { createJobsWithinQuota, type CreateOutcome, type NewJob, type WithinQuota } from '../db/transitions/create-sql.js';
import { insertQuotaHit } from '../db/quota-hits-sql.js';
import { refuseWhenBudgetSpent } from './budget-refusal.js';
import { AccountDeletedError } from '@atelier/errors';

type CreateJob = Handler<typeof jobsV1.JobsServiceService.createJob>;

/** A create cut short by the database is run once more (idempotent by its key), then the blip is the caller's 503. */
const ONE_RETRY_ON_A_BLIP = (signal: AbortSignal) => ({
  isTransient: isTransientError,
  maxAttempts: 2,
  backoff: { baseMs: 50, maxMs: 200 },
  signal,
});

/** Same key and same command: the existing job (a replay). Same key, another command: refused. */
function replayOrRefuse(existing: JobRow, hash: Buffer): JobRow {
  if (!existing.request_hash.equals(hash)) {
    throw new AlreadyExistsError(
      'IDEMPOTENCY_PAYLOAD_MISMATCH',
      'this Idempotency-Key was already used for a different request; use a new key for a new generation',
    );
  }
  return existing;
}

/**
 * Quota-counted creates in flight at once, coalesced: each batch is one transaction that takes its
 * users' locks and inserts with one statement per round, sent pipelined (db/transitions/create-sql.ts). Two batches at
 * once: measured, fewer and larger transactions cost Postgres and jobs less per create than four
 * (bench:jobs), and a second one keeps creates moving while one waits for a lock another replica
 * holds. 64 per batch bound how long one transaction holds its users' locks.
 */
const QUOTA_BATCHES = { maxBatch: 64, maxConcurrent: 2 };

/**
 * Notes the refusal for the operators' overview (how many users hit each allowance). A figure,
 * not a rule: when it cannot be written the user still gets their refusal, and the log says so.
 */
async function recordQuotaHit(context: Pick<JobsContext, 'pool' | 'logger'>, userId: string, allowance: QuotaAllowance): Promise<void> {
  try {
    await insertQuotaHit(context.pool, userId, allowance);
  } catch (error) {
    context.logger.warn({ err: error, allowance }, 'a quota refusal could not be recorded for the overview');
  }
}

/**
 * CreateJob with the three layers of "never twice" that happen at creation (SPEC §4.3):
 * L1 — the idempotency key and the canonical request hash, backed by UNIQUE(user_id, key);
 * L3 — quotas (daily, monthly, in flight) counted under per-user advisory locks, so concurrent
 *      submits cannot overshoot any of them.
 * The job row, its creation event and its dispatch are written in one statement
 * (db/transitions/create-sql.ts), which also finds the key's earlier job and, under the lock, the usage.
 */
export function createJob(context: JobsContext): CreateJob {
  const quotaCheck = quotaCheckOf(context);

  const quotaCreates = new MicroBatcher<{ job: NewJob; actor: string }, WithinQuota>(
    (requests) =>
      createJobsWithinQuota(
        context.pool,
        requests.map((r) => r.job),
        requests.map((r) => r.actor),
        quotaCheck,
        context.outboxSubjects(),
      ),
    QUOTA_BATCHES,
  );

  async function replayReply(row: JobRow): Promise<jobsV1.CreateJobResponse> {
    return { job: toJobMessage(row, { events: await selectJobEvents(context.pool, [row.id]) }), created: false };
  }

  return async (request, call) => {
    const userId = requireUserId(request.userId, 'user_id');
    const idempotencyKey = requireIdempotencyKey(request.idempotencyKey);
    const definition: JobDefinition = context.registry.get(request.jobType);
    const command = normaliseCommand(request, definition);
    // The normalised command, not the raw request: whitespace around a prompt or the order of
    // the parameters does not make two equal requests differ.
    const hash = requestHash(command);

    const peersFrom = performance.now();
    // A replay must not depend on the peers or the quota of now (a model disabled since, a user
    // over quota since): the insert statement finds the key's earlier job whatever the quota, and
    // when the peers refuse, the key is looked up before their refusal is answered.
    const peersAnswer = await resolveAgainstPeers(context.peers, command, definition, userId)
      .then(
        async (value) => ({ value, credential: await jobCredentialOf(context.pool, command.credentialId, value, userId) }),
        (error: unknown) => ({ error }),
      )
      .catch((error: unknown) => ({ error }));
    if ('error' in peersAnswer) {
      const earlier = await selectJobByIdempotencyKey(context.pool, userId, idempotencyKey);
      if (earlier) return replayReply(replayOrRefuse(earlier, hash));
      throw peersAnswer.error;
    }
    const peersSeconds = (performance.now() - peersFrom) / 1000;
    const { value: resolved, credential } = peersAnswer;
    const effective = effectiveInput({
      defaults: resolved.defaultParameters,
      userParameters: command.parameters,
      userSettable: definition.userParameters,
      userPrompt: command.prompt,
      promptPreset: resolved.promptPreset,
    });
    const job: NewJob = {
      id: uuidv7(),
      userId,
      petId: command.petId,
      jobType: definition.jobType,
      mediaKind: resolved.mediaKind,
      queue: definition.queue,
      modelId: command.modelId,
      styleId: command.styleId,
      inputAssetId: command.inputAssetId,
      expectsOutput: definition.producesOutput,
      prompt: command.prompt,
      negativePrompt: command.negativePrompt,
      width: command.width,
      height: command.height,
      parameters: command.parameters,
      providerCode: resolved.snapshot?.providerCode ?? null,
      providerModel: resolved.snapshot?.providerModel ?? null,
      modelVersion: resolved.snapshot?.modelVersion ?? null,
      styleCode: resolved.styleCode,
      maxAttempts: definition.maxAttempts,
      idempotencyKey,
      requestHash: hash,
      retryOfJobId: null,
      traceContext: currentTraceCarrier(),
      startWithinSeconds: command.startWithinSeconds ?? null,
      effectiveParameters: effective.parameters,
      effectivePrompt: effective.prompt,
      ...(credential ? { credential } : {}),
    };
    const actor = `user:${userId}`;
    // A spent budget refuses new jobs, not the replay of one created before it was spent.
    await refuseWhenBudgetSpent(context, job).catch(async (error: unknown) => {
      const earlier = await selectJobByIdempotencyKey(context.pool, userId, idempotencyKey);
      if (!earlier) throw error;
    });

    // Safe to run twice after a database blip: under the lock the first run's job, if it
    // committed, is found by its key (and has this very id).
    const insertFrom = performance.now();
    const outcome: CreateOutcome = definition.countsTowardQuota
      ? await retryWithBackoff(async () => {
          const within = await quotaCreates.submit({ job, actor }, call.signal);
          // Refused under the lock, and the statement says why: the account is being deleted, or an allowance ran out.
          if (within.refusal === 'account_deleted') throw new AccountDeletedError();
          if (within.refusal) {
            const refusal = quotaRefusal(within.refusal, context.quota, new Date());
            await recordQuotaHit(context, userId, refusal.allowance);
            throw new ResourceExhaustedError(refusal.reason, refusal.message, refusal.retryAfterSeconds, { params: refusal.params });
          }
          return within.outcome;
        }, ONE_RETRY_ON_A_BLIP(call.signal))
      : await context.batches.create(job, actor, call.signal);

    // No job at all: the key's job committed while the statement ran (quota-exempt types, outside the lock).
    const row = outcome.job ?? (await selectJobByIdempotencyKey(context.pool, userId, idempotencyKey))!;
    // Another id: an earlier request's job. This id, not inserted: this very create, committed by a run cut short.
    if (row.id !== job.id) return replayReply(replayOrRefuse(row, hash));
    context.metrics.createStage.observe({ stage: 'peers' }, peersSeconds);
    context.metrics.createStage.observe({ stage: 'insert' }, (performance.now() - insertFrom) / 1000);
    announce(context, 'created', [row]);
    // A new job's only history is its creation: no attempts yet.
    return { job: toJobMessage(row, { events: [] }), created: true };
  };
}
