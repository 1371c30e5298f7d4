import { mediaV1, type jobsExecutionV1 } from '@atelier/contracts';
import { AppError, ErrorCode, FailedPreconditionError, InvalidArgumentError, isAppError } from '@atelier/errors';
import { GRPC_STATUS_BY_ERROR_CODE, type Handler } from '@atelier/grpc';
import { requireUuid } from '@atelier/validation';
import { findJob } from '../db/job-queries.js';
import type { JobsContext } from '../jobs-context.js';
import { toJobMessage } from '../job-mapper.js';
import { leaseRefusal, requireWorkerId } from './lease-refusal.js';

type CompleteJob = Handler<typeof jobsExecutionV1.JobExecutionServiceService.completeJob>;
type CompleteJobs = Handler<typeof jobsExecutionV1.JobExecutionServiceService.completeJobs>;

/**
 * running → succeeded. An output must be a ready ai_output asset of the job's user whose hash is
 * the one the worker computed. ABORTED (lease lost, job cancelled or finished) tells the worker
 * its output is an orphan to delete.
 */
export function completeJob(context: JobsContext): CompleteJob {
  return completer(context);
}

/**
 * CompleteJob for many jobs at once. Each entry answers what the single call would have, a
 * refusal included (as an EntryError), so one lost lease does not fail the others.
 */
export function completeJobs(context: JobsContext): CompleteJobs {
  const completeOne = completer(context);
  return async (request, call) => {
    if (request.completions.length > 500) throw new InvalidArgumentError('completions', 'at most 500 entries per call');
    const results = await Promise.all(
      request.completions.map((completion) =>
        completeOne(completion, call).then(
          (completed): jobsExecutionV1.CompleteJobsResult => ({ result: { $case: 'completed', completed } }),
          (error: unknown): jobsExecutionV1.CompleteJobsResult => {
            if (!isAppError(error)) throw error;
            return {
              result: {
                $case: 'error',
                error: { code: GRPC_STATUS_BY_ERROR_CODE[error.code], reason: error.reason ?? '', message: error.message },
              },
            };
          },
        ),
      ),
    );
    return { results };
  };
}

function completer(context: JobsContext): CompleteJob {
  async function verifyOutput(jobId: string, workerId: string, outputAssetId: string, sha256: string): Promise<void> {
    const row = await findJob(context.pool, jobId);
    if (!row || row.status !== 'running' || row.lease_owner !== workerId) throw await leaseRefusal(context.pool, jobId, workerId);
    if (!row.expects_output) throw new InvalidArgumentError('output_asset_id', `${row.job_type} jobs have no output`);
    const asset = await context.peers.media.getAssetInternal({ assetId: outputAssetId, includeDownloadUrl: false }).then(
      (r) => r.asset!,
      (error: unknown) => {
        if (error instanceof AppError && error.code === ErrorCode.NOT_FOUND) {
          throw new FailedPreconditionError('OUTPUT_INVALID', 'the output asset does not exist');
        }
        throw error;
      },
    );
    const problem =
      asset.ownerUserId !== row.user_id
        ? 'belongs to another user'
        : asset.status !== mediaV1.AssetStatus.READY
          ? 'is not ready'
          : asset.purpose !== mediaV1.AssetPurpose.AI_OUTPUT
            ? 'is not an ai_output asset'
            : sha256 && asset.sha256 !== sha256.toLowerCase()
              ? 'has another sha256 than reported'
              : undefined;
    if (problem) throw new FailedPreconditionError('OUTPUT_INVALID', `the output asset ${problem}`);
  }

  return async (request, call) => {
    const jobId = requireUuid(request.jobId, 'job_id');
    const workerId = requireWorkerId(request.workerId);
    const outputAssetId = request.outputAssetId ? requireUuid(request.outputAssetId, 'output_asset_id') : null;
    if (outputAssetId) await verifyOutput(jobId, workerId, outputAssetId, request.outputSha256);
    const row = await context.batches.complete({ jobId, workerId, outputAssetId }, call.signal);
    if (!row) {
      const current = await findJob(context.pool, jobId);
      if (current?.status === 'running' && current.lease_owner === workerId && current.expects_output && !outputAssetId) {
        throw new InvalidArgumentError('output_asset_id', 'is required: this job type produces an output');
      }
      throw await leaseRefusal(context.pool, jobId, workerId);
    }
    context.onOutboxWrite();
    context.watchHub.changed(jobId);
    context.metrics.ended(row);
    return { job: toJobMessage(row) };
  };
}
