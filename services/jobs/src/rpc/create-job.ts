import type { jobsV1 } from '@atelier/contracts';
import { uuidv7, inTransaction } from '@atelier/db';
import { AlreadyExistsError, ResourceExhaustedError, isTransientError } from '@atelier/errors';
import { retryWithBackoff } from '@atelier/lifecycle';
import type { Handler } from '@atelier/grpc';
import { currentTraceCarrier } from '@atelier/telemetry';
import { requireIdempotencyKey, requireUserId } from '@atelier/validation';
import type { JobDefinition } from '../definitions/index.js';
import { findJobByIdempotencyKey, listEvents, lockUserForQuota, quotaUsage } from '../db/job-queries.js';
import type { JobRow } from '../db/job-row.js';
import { insertJobs, type NewJob } from '../db/job-transitions.js';
import { normaliseCommand } from '../domain/job-command.js';
import { decideQuota } from '../domain/quota.js';
import { requestHash } from '../domain/request-hash.js';
import type { JobsContext } from '../jobs-context.js';
import { toJobMessage } from '../job-mapper.js';
import { resolveAgainstPeers } from '../peer-validation.js';

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
 * CreateJob with the three layers of "never twice" that happen at creation (SPEC §4.3):
 * L1 — the idempotency key and the canonical request hash, backed by UNIQUE(user_id, key);
 * L3 — quotas counted under a per-user advisory lock, so concurrent submits cannot overshoot.
 * The job row, its creation event and its dispatch are written in one statement.
 */
export function createJob(context: JobsContext): CreateJob {
  const quotaJobTypes = context.registry
    .all()
    .filter((d) => d.countsTowardQuota)
    .map((d) => d.jobType);

  async function replayReply(row: JobRow): Promise<jobsV1.CreateJobResponse> {
    return { job: toJobMessage(row, { events: await listEvents(context.pool, [row.id]) }), created: false };
  }

  return async (request, call) => {
    const userId = requireUserId(request.userId, 'user_id');
    const idempotencyKey = requireIdempotencyKey(request.idempotencyKey);
    const definition: JobDefinition = context.registry.get(request.jobType);
    const command = normaliseCommand(request, definition);
    const hash = requestHash(command);

    // A job type that needs neither peers nor quota (the canary) goes straight to the insert; the
    // unique key answers replays. Others answer a replay first: it must not depend on the peers
    // or the quota of now (a model disabled since, a user over quota since).
    const standalone = !definition.usesModel && !definition.usesInputAsset && definition.style === 'none' && !definition.countsTowardQuota;
    if (!standalone) {
      const earlier = await findJobByIdempotencyKey(context.pool, userId, idempotencyKey);
      if (earlier) return replayReply(replayOrRefuse(earlier, hash));
    }

    const resolved = await resolveAgainstPeers(context.peers, command, definition, userId);
    const job: NewJob = {
      id: uuidv7(),
      userId,
      petId: command.petId,
      jobType: definition.jobType,
      mediaKind: resolved.mediaKind,
      queue: definition.queue,
      priority: definition.defaultPriority,
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
    };
    const actor = `user:${userId}`;

    // Safe to run twice after a database blip: under the lock the first run's job, if it
    // committed, is found by its key (and has this very id).
    const inserted = definition.countsTowardQuota
      ? await retryWithBackoff(
          () =>
            inTransaction(context.pool, async (client) => {
              await lockUserForQuota(client, userId);
              // Under the lock a concurrent request with the same key has committed or not started.
              const raced = await findJobByIdempotencyKey(client, userId, idempotencyKey);
              if (raced) return raced;
              const usage = await quotaUsage(client, userId, quotaJobTypes);
              const decision = decideQuota({ today: usage.today, inFlight: usage.in_flight }, context.quota, new Date());
              if (!decision.allowed) {
                throw new ResourceExhaustedError('GENERATION_QUOTA_EXCEEDED', decision.message, decision.retryAfterSeconds);
              }
              const [row] = await insertJobs(client, [job], [actor], context.subjects);
              return row ?? null;
            }),
          ONE_RETRY_ON_A_BLIP(call.signal),
        )
      : await context.batches.insert(job, actor, call.signal);

    // null: the unique key lost a race outside the lock (quota-exempt types); the winner stands.
    const row = inserted ?? (await findJobByIdempotencyKey(context.pool, userId, idempotencyKey))!;
    if (row.id !== job.id) return replayReply(replayOrRefuse(row, hash));
    context.onOutboxWrite();
    context.metrics.created.inc({ job_type: row.job_type });
    // A new job's only history is its creation: no attempts yet.
    return { job: toJobMessage(row, { events: [] }), created: true };
  };
}
