import { mediaV1, type jobsExecutionV1 } from '@atelier/contracts';
import { AppError, ErrorCode, FailedPreconditionError, InvalidArgumentError, isAppError } from '@atelier/errors';
import { GRPC_STATUS_BY_ERROR_CODE, type Handler } from '@atelier/grpc';
import { requireUuid } from '@atelier/validation';
import type { JobsContext } from '../jobs-context.js';
import { toJobMessage } from '../job-mapper.js';
import { announce } from '../transitions/announce.js';
import { holdsLease, leaseRefusal } from '../transitions/lease-refusal.js';
import { requireWorkerId } from './worker-id.js';

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

/** What media says of an output asset: its owner, and what is wrong with it apart from its owner. */
interface OutputCheck {
  ownerId: string | null;
  problem: string | undefined;
}

function completer(context: JobsContext): CompleteJob {
  async function checkOutput(outputAssetId: string, sha256: string): Promise<OutputCheck> {
    const asset = await context.peers.media.getAssetInternal({ assetId: outputAssetId, includeDownloadUrl: false }).then(
      (r) => r.asset!,
      (error: unknown) => {
        if (error instanceof AppError && error.code === ErrorCode.NOT_FOUND) return undefined;
        throw error;
      },
    );
    if (!asset) return { ownerId: null, problem: 'does not exist' };
    const problem =
      asset.status !== mediaV1.AssetStatus.READY
        ? 'is not ready'
        : asset.purpose !== mediaV1.AssetPurpose.AI_OUTPUT
          ? 'is not an ai_output asset'
          : sha256 && asset.sha256 !== sha256.toLowerCase()
            ? 'has another sha256 than reported'
            : undefined;
    return { ownerId: asset.ownerUserId, problem };
  }

  return async (request, call) => {
    const jobId = requireUuid(request.jobId, 'job_id');
    const workerId = requireWorkerId(request.workerId);
    const outputAssetId = request.outputAssetId ? requireUuid(request.outputAssetId, 'output_asset_id') : null;
    const output = outputAssetId ? await checkOutput(outputAssetId, request.outputSha256) : undefined;
    // A faulty output completes nothing: no owner matches. The lease is still checked first, so a
    // worker that lost the job hears that (and deletes its orphan) rather than the output's fault.
    const outputOwnerId = output && !output.problem ? output.ownerId : null;
    const result = await context.batches.complete({ jobId, workerId, outputAssetId, outputOwnerId }, call.signal);
    if (result.changed) {
      announce(context, 'ended', [result.job]);
      return { job: toJobMessage(result.job) };
    }
    const { found } = result;
    if (!holdsLease(found, workerId)) throw leaseRefusal(found, workerId);
    if (!found.expectsOutput && outputAssetId) throw new InvalidArgumentError('output_asset_id', `${found.jobType} jobs have no output`);
    if (found.expectsOutput && !outputAssetId)
      throw new InvalidArgumentError('output_asset_id', 'is required: this job type produces an output');
    const problem = output?.problem ?? (output?.ownerId !== found.userId ? 'belongs to another user' : undefined);
    if (problem) throw new FailedPreconditionError('OUTPUT_INVALID', `the output asset ${problem}`);
    throw leaseRefusal(found, workerId);
  };
}
