import { mediaV1, type jobsAdminV1 } from '@atelier/contracts';
import type { Queryable } from '@atelier/db';
import { uuidv7 } from '@atelier/db';
import { FailedPreconditionError, NotFoundError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { currentTraceCarrier } from '@atelier/telemetry';
import { auditedChange, requireOperatorActor } from '@atelier/operator-audit';
import { requireUserId, requireUuid } from '@atelier/validation';
import type { JobRow } from '../../db/job-row.js';
import { selectJob, selectJobEvents } from '../../db/job-sql.js';
import type { JobsContext } from '../../jobs-context.js';
import { toAdminJobMessage } from '../job-mapper.js';
import { announce } from '../../announce/announce.js';
import { createJobs } from '../../db/transitions/create-sql.js';

type RetryJob = Handler<typeof jobsAdminV1.JobsAdminServiceService.retryJob>;

/**
 * An operator retries a failed or cancelled job: a new job for the same user with the same
 * input and catalog snapshots, linked by retry_of_job_id. The original keeps its failure history.
 * Operator retries do not count against the user's quota. The audit entry (refusals too) is
 * written in the transaction that inserts the copy.
 */
export function retryJob(context: JobsContext): RetryJob {
  return async (request) => {
    const jobId = requireUuid(request.jobId, 'job_id');
    const operatorId = requireUserId(request.operatorId, 'operator_id');
    const actor = requireOperatorActor(request.actor);
    const row = await auditedChange(context.pool, 'jobs', { action: 'job.retry', actor, target: `job:${jobId}` }, async (tx) => {
      const created = await insertRetry(context, tx, jobId, operatorId);
      return { result: created, before: null, after: { retryJobId: created.id, status: created.status } };
    });
    announce(context, 'created', [row]);
    return { job: toAdminJobMessage(row, await selectJobEvents(context.pool, [row.id])) };
  };
}

/** The copy of a failed or cancelled job, inserted on `db`; refusals as RetryJob documents them. */
async function insertRetry(context: JobsContext, db: Queryable, jobId: string, operatorId: string): Promise<JobRow> {
  const original = await selectJob(db, jobId);
  if (!original) throw new NotFoundError('job');
  if (original.status !== 'failed' && original.status !== 'cancelled') {
    throw new FailedPreconditionError('JOB_NOT_RETRYABLE', `only failed or cancelled jobs can be retried; this one is ${original.status}`);
  }
  // What the user wrote is gone (docs/retention.md): a copy would ask the vendor for something else.
  if (original.redaction_version !== null) {
    throw new FailedPreconditionError('JOB_REDACTED', "this job's prompt was removed by retention; the user can create a new job instead");
  }
  const definition = context.registry.get(original.job_type);
  if (original.input_asset_id) {
    const { asset } = await context.peers.media.getAssetInternal({ assetId: original.input_asset_id, includeDownloadUrl: false });
    if (asset?.status !== mediaV1.AssetStatus.READY) {
      throw new FailedPreconditionError('MEDIA_NOT_READY', 'the original input image is no longer available');
    }
  }
  const id = uuidv7();
  const [outcome] = await createJobs(
    db,
    [
      {
        id,
        userId: original.user_id,
        petId: original.pet_id,
        jobType: original.job_type,
        mediaKind: original.media_kind,
        queue: definition.queue,
        modelId: original.model_id,
        styleId: original.style_id,
        inputAssetId: original.input_asset_id,
        expectsOutput: original.expects_output,
        prompt: original.prompt,
        negativePrompt: original.negative_prompt,
        width: original.width,
        height: original.height,
        parameters: original.parameters,
        providerCode: original.provider_code_snapshot,
        providerModel: original.provider_model_snapshot,
        modelVersion: original.model_version_snapshot,
        styleCode: original.style_code_snapshot,
        maxAttempts: definition.maxAttempts,
        idempotencyKey: `operator-retry:${id}`,
        requestHash: original.request_hash,
        retryOfJobId: original.id,
        traceContext: currentTraceCarrier(),
        // An operator's retry runs whenever a worker is free: the caller's start deadline was for the original.
        startWithinSeconds: null,
        // The original's effective input, as its catalog snapshots: the retry asks the vendor what the original asked.
        effectiveParameters: original.effective_parameters,
        effectivePrompt: original.effective_prompt,
        // The same key as the original (its owner may have deleted it since: the worker then fails the copy with CREDENTIAL_REVOKED).
        ...(original.credential_mode === 'user_key' && original.credential_id
          ? { credential: { mode: 'user_key' as const, id: original.credential_id } }
          : {}),
      },
    ],
    [`operator:${operatorId}`],
    context.outboxSubjects(),
  );
  // The key is new (it holds the new id): the job was inserted.
  return outcome!.job!;
}
