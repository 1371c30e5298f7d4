import { mediaV1, type jobsExecutionV1 } from '@atelier/contracts';
import { AppError, ErrorCode, FailedPreconditionError, InvalidArgumentError, isAppError } from '@atelier/errors';
import { toStatusDetails, type Handler } from '@atelier/grpc';
import { requireUuid } from '@atelier/validation';
import type { JobsContext } from '../jobs-context.js';
import { toJobMessage } from './job-mapper.js';
import { announce } from '../announce/announce.js';
import { complete, type CompleteRequest } from '../db/transitions/complete-sql.js';
import { selectJobSucceededBy } from '../db/job-sql.js';
import type { FoundJob, TransitionResult } from '../db/transitions/found-job-row.js';
import { holdsLease, leaseRefusal } from './lease-refusal.js';
import { requireWorkerId } from './worker-id.js';

type CompleteJob = Handler<typeof jobsExecutionV1.JobExecutionServiceService.completeJob>;
type CompleteJobs = Handler<typeof jobsExecutionV1.JobExecutionServiceService.completeJobs>;

/**
 * running → succeeded. An output must be a ready ai_output asset of the job's user whose hash is
 * the one the worker computed; its SHA-256 is recorded on the job. A completion repeated after the
 * job already succeeded with that very output, by the worker that completed it (retrying a call
 * whose answer it lost), is answered as the success it was; any other completion of a finished
 * job is refused — a worker whose lease was taken over included, though it stored the same output
 * (outputs are keyed by job). ABORTED
 * (lease lost, job cancelled or finished) tells the worker its output is an orphan to delete.
 */
export function completeJob(context: JobsContext): CompleteJob {
  return async (request, call) => {
    const [outcome] = await completeEntries(context, [request], ([one]) => context.batches.complete(one!, call.signal).then((r) => [r]));
    if (outcome instanceof Error) throw outcome;
    return outcome!;
  };
}

/**
 * CompleteJob for many jobs at once, in one statement (the worker coalesced them already). Each
 * entry answers what the single call would have, a refusal included (as an EntryError), so one
 * lost lease does not fail the others.
 */
export function completeJobs(context: JobsContext): CompleteJobs {
  return async (request, call) => {
    if (request.completions.length > 500) throw new InvalidArgumentError('completions', 'at most 500 entries per call');
    const outcomes = await completeEntries(context, request.completions, async (requests) => {
      if (call.signal.aborted) throw new AppError(ErrorCode.CANCELLED, 'the caller gave up before its completions were recorded');
      return complete(context.pool, requests, context.outboxSubjects());
    });
    return {
      results: outcomes.map((outcome): jobsExecutionV1.CompleteJobsResult => {
        if (!(outcome instanceof Error)) return { result: { $case: 'completed', completed: outcome } };
        if (!isAppError(outcome)) throw outcome;
        return { result: { $case: 'error', error: toStatusDetails(outcome) } };
      }),
    };
  };
}

/** What media says of an output asset: its owner, and what is wrong with it apart from its owner. */
interface OutputCheck {
  ownerId: string | null;
  /** The asset's SHA-256 as media recorded it, lower-case hex. */
  sha256: string | null;
  problem: string | undefined;
}

async function checkOutput(context: JobsContext, outputAssetId: string, sha256: string): Promise<OutputCheck> {
  const asset = await context.peers.media.getAssetInternal({ assetId: outputAssetId, includeDownloadUrl: false }).then(
    (r) => r.asset!,
    (error: unknown) => {
      if (error instanceof AppError && error.code === ErrorCode.NOT_FOUND) return undefined;
      throw error;
    },
  );
  if (!asset) return { ownerId: null, sha256: null, problem: 'does not exist' };
  const problem =
    asset.status !== mediaV1.AssetStatus.READY
      ? 'is not ready'
      : asset.purpose !== mediaV1.AssetPurpose.AI_OUTPUT
        ? 'is not an ai_output asset'
        : sha256 && asset.sha256 !== sha256.toLowerCase()
          ? 'has another sha256 than reported'
          : undefined;
  return { ownerId: asset.ownerUserId, sha256: asset.sha256 || null, problem };
}

interface CheckedCompletion {
  request: CompleteRequest;
  output: OutputCheck | undefined;
}

/**
 * Validates each completion and checks its output with media, records the valid ones with `run`
 * (one statement), and answers per entry the succeeded job or the refusal the single call raises.
 * A faulty output completes nothing: no owner matches. The lease is still checked first, so a
 * worker that lost the job hears that (and deletes its orphan) rather than the output's fault.
 */
async function completeEntries(
  context: JobsContext,
  requests: readonly jobsExecutionV1.CompleteJobRequest[],
  run: (requests: CompleteRequest[]) => Promise<TransitionResult[]>,
): Promise<(jobsExecutionV1.CompleteJobResponse | Error)[]> {
  const checked = await Promise.all(
    requests.map(async (request): Promise<CheckedCompletion | Error> => {
      try {
        const jobId = requireUuid(request.jobId, 'job_id');
        const workerId = requireWorkerId(request.workerId);
        const outputAssetId = request.outputAssetId ? requireUuid(request.outputAssetId, 'output_asset_id') : null;
        const output = outputAssetId ? await checkOutput(context, outputAssetId, request.outputSha256) : undefined;
        const outputOwnerId = output && !output.problem ? output.ownerId : null;
        const outputSha256 = output && !output.problem ? output.sha256 : null;
        return { request: { jobId, workerId, outputAssetId, outputOwnerId, outputSha256 }, output };
      } catch (error) {
        return error as Error;
      }
    }),
  );
  const valid = checked.filter((entry): entry is CheckedCompletion => !(entry instanceof Error));
  const results = valid.length === 0 ? [] : await run(valid.map((entry) => entry.request));
  announce(
    context,
    'ended',
    results.flatMap((result) => (result.changed ? [result.job] : [])),
  );
  let next = 0;
  return Promise.all(
    checked.map(async (entry) => {
      if (entry instanceof Error) return entry;
      const result = results[next++]!;
      if (result.changed) return { job: toJobMessage(result.job) };
      if (isRepeatedCompletion(result.found, entry)) {
        const job = await selectJobSucceededBy(context.pool, entry.request.jobId, entry.request.workerId);
        if (job) return { job: toJobMessage(job) };
      }
      return refusalOf(result.found, entry);
    }),
  );
}

/** The job already succeeded with this very output: same asset, same bytes (media's hash of them); who completed it is checked after. */
function isRepeatedCompletion(found: FoundJob | null, { request, output }: CheckedCompletion): boolean {
  return (
    found?.status === 'succeeded' &&
    request.outputAssetId !== null &&
    found.outputAssetId === request.outputAssetId &&
    output?.problem === undefined &&
    found.outputSha256 !== null &&
    found.outputSha256 === request.outputSha256
  );
}

function refusalOf(found: FoundJob | null, { request, output }: CheckedCompletion): Error {
  if (!holdsLease(found, request.workerId)) return leaseRefusal(found, request.workerId);
  if (!found!.expectsOutput && request.outputAssetId)
    return new InvalidArgumentError('output_asset_id', `${found!.jobType} jobs have no output`);
  if (found!.expectsOutput && !request.outputAssetId)
    return new InvalidArgumentError('output_asset_id', 'is required: this job type produces an output');
  const problem = output?.problem ?? (output?.ownerId !== found!.userId ? 'belongs to another user' : undefined);
  if (problem) return new FailedPreconditionError('OUTPUT_INVALID', `the output asset ${problem}`);
  return leaseRefusal(found, request.workerId);
}
