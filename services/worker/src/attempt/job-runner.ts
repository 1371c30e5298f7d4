import { type jobsEventsV1, jobsExecutionV1, type mediaV1 } from '@atelier/contracts';
import { AppError, ErrorCode, isTransientError } from '@atelier/errors';
import type { PromiseClient } from '@atelier/grpc';
import type { Logger } from '@atelier/logging';
import type { CrashPoint } from '../domain/crash-points.js';
import type { ExecutionBatches } from '../peers/execution-batches.js';
import type { JobExecutor } from '../executors/job-executor.js';
import { retryInAttempt } from '../domain/attempt-retry.js';
import { classify, isTransientFailure, JobFailure } from '../domain/job-failure.js';
import { stopCauseOf, type AttemptClock, type StopCause } from '../domain/attempt-clock.js';
import { deleteOrphan, putOutput } from '../peers/output-store.js';
import { ProgressReporter } from '../domain/progress-reporter.js';
import type { ProviderCallRecording } from '../peers/provider-call-ledger.js';
import type { ProviderClients } from '../peers/provider/provider-clients.js';
import type { WorkerMetrics } from '../worker-metrics.js';
import { pausedDelayMs, pauseReasonWord } from '../domain/provider-pause.js';

const { ClaimOutcome, FailOutcome } = jobsExecutionV1;

/**
 * What to do with the message that brought the job: the outcome is in the database by now. A
 * `retry-later` (the jobs service could not be reached) comes back after a pause that grows with
 * each delivery of the message.
 */
export type Settlement = { kind: 'ack' } | { kind: 'term' } | { kind: 'nak'; delayMs: number } | { kind: 'retry-later' };
const RETRY_LATER: Settlement = { kind: 'retry-later' };
const ACK: Settlement = { kind: 'ack' };

/** Progress goes to the jobs service at most this often per job. */
const PROGRESS_INTERVAL_MS = 1_000;

/** Why an attempt was aborted before it finished. */
type AbortCause = StopCause | 'timeout' | 'shutdown';
class AttemptAborted extends Error {
  override name = 'AttemptAborted';
  constructor(readonly abortCause: AbortCause) {
    super(`attempt aborted: ${abortCause}`);
  }
}

export interface JobRunnerDeps {
  execution: PromiseClient<jobsExecutionV1.JobExecutionServiceClient>;
  /** Claims and completions, coalesced across the jobs this worker runs at once. */
  batches: ExecutionBatches;
  media: PromiseClient<mediaV1.MediaServiceClient>;
  executors: ReadonlyMap<string, JobExecutor>;
  /** The vendor clients: a cancel uses the job's own credential (the user's key, or the platform's). */
  providers: ProviderClients;
  workerId: string;
  logger: Logger;
  metrics: WorkerMetrics;
  crashPoint: (point: CrashPoint) => void;
  /** Keeps the deadlines and the leases of the attempts this worker runs. */
  clock: AttemptClock;
  /** Caps the definition's time budget of every attempt. */
  timeoutCapMs?: number;
  /** The usage ledger: the runner's own cancels are recorded, and a job's calls flushed before its outcome. */
  calls?: ProviderCallRecording;
}

/** What a cancel at the vendor needs of a job. */
type CancellableJob = { id: string; snapshot?: { providerCode: string; providerModel: string; modelVersion: string } };

/** Outputs stay with the job when another attempt runs on or succeeded with them (same media key). */
function outputIsOrphan(reason: string | undefined): boolean {
  return reason === 'JOB_CANCELLED' || reason === 'JOB_FAILED';
}

/**
 * The pipeline of one dispatch (SPEC §5): claim → resolve → execute → project → complete, with a
 * lease keeper beside it. Every path ends with the outcome recorded in the jobs service before the
 * message is settled, so a crash at any point leaves either a running job whose lease will expire
 * (and be reaped) or a finished one.
 */
export class JobRunner {
  /** How to stop each attempt this worker runs now, by job id, and the drain signal it came with. */
  private readonly running = new Map<string, { abort: (cause: AbortCause) => void; drain: AbortSignal }>();
  /** Drain signals already listened to: one listener per consumer, not one per job. */
  private readonly drains = new WeakSet<AbortSignal>();

  constructor(private readonly deps: JobRunnerDeps) {}

  /**
   * Stops the attempt running for this job here, if any — a cancel pushed by the jobs service
   * reaches the vendor from here within moments. Unknown jobs are ignored: most cancels are for
   * jobs other workers run, or that run nowhere.
   */
  stop(jobId: string, cause: StopCause): void {
    this.running.get(jobId)?.abort(cause);
  }

  /** When a consumer drains, the attempts it brought are aborted ('shutdown': handed back). */
  private listenTo(drain: AbortSignal): void {
    if (this.drains.has(drain)) return;
    this.drains.add(drain);
    drain.addEventListener(
      'abort',
      () => {
        for (const attempt of [...this.running.values()]) if (attempt.drain === drain) attempt.abort('shutdown');
      },
      { once: true },
    );
  }

  async run(dispatch: jobsEventsV1.JobDispatch, drain: AbortSignal): Promise<Settlement> {
    const { workerId, logger } = this.deps;
    let claim: jobsExecutionV1.ClaimJobResponse;
    try {
      claim = await this.deps.batches.claim({ jobId: dispatch.jobId, workerId });
    } catch (error) {
      if (isTransientError(error)) {
        logger.warn({ jobId: dispatch.jobId, err: error }, 'jobs service unreachable at claim; the message comes back later');
        return RETRY_LATER;
      }
      logger.error({ jobId: dispatch.jobId, err: error }, 'claim refused; dropping the message');
      return { kind: 'term' };
    }
    switch (claim.outcome) {
      case ClaimOutcome.CLAIMED:
        return this.runClaimed(claim.claimed!, drain);
      case ClaimOutcome.NOT_DUE:
        return { kind: 'nak', delayMs: Math.max(100, (claim.notBefore?.getTime() ?? Date.now()) - Date.now()) };
      case ClaimOutcome.PROVIDER_PAUSED:
        this.deps.metrics.claimsPaused.inc({ reason: pauseReasonWord(claim.pauseReason) });
        return { kind: 'nak', delayMs: pausedDelayMs(claim) };
      case ClaimOutcome.TERMINAL:
      case ClaimOutcome.NOT_FOUND:
        return { kind: 'term' };
      default:
        return ACK; // a duplicate of a dispatch another worker is running
    }
  }

  /** Runs a job jobs claimed for this worker while it waited (AwaitJobs): the claim is made already. */
  runHandedOver(claimed: jobsExecutionV1.ClaimedJob, drain: AbortSignal): Promise<Settlement> {
    return this.runClaimed(claimed, drain);
  }

  private async runClaimed(claimed: jobsExecutionV1.ClaimedJob, drain: AbortSignal): Promise<Settlement> {
    const { execution, media, logger, metrics, workerId, clock } = this.deps;
    const job = claimed.job!;
    const startedAt = performance.now();
    const executor = this.deps.executors.get(job.jobType);
    const controller = new AbortController();
    const abort = (cause: AbortCause) => !controller.signal.aborted && controller.abort(new AttemptAborted(cause));
    if (drain.aborted) abort('shutdown');
    this.listenTo(drain);
    let progress = 0;
    let predictionId: string | undefined;
    let stored: mediaV1.Asset | undefined;
    this.running.set(job.id, { abort, drain });
    const reporter = new ProgressReporter<StopCause>({
      send: async (value) => {
        const reason = await this.deps.batches.reportProgress({ jobId: job.id, workerId, progress: value });
        return reason === undefined ? undefined : stopCauseOf(reason);
      },
      onStop: (cause) => abort(cause),
      intervalMs: PROGRESS_INTERVAL_MS,
      logger,
      jobId: job.id,
    });
    const unclock = clock.add({
      jobId: job.id,
      deadline: startedAt + Math.min(claimed.timeoutMs, this.deps.timeoutCapMs ?? Infinity),
      heartbeatIntervalMs: Math.max(250, claimed.heartbeatIntervalMs),
      progress: () => progress,
      onStop: (cause) => abort(cause),
      onTimeout: () => abort('timeout'),
    });
    const finish = (outcome: string) => {
      metrics.outcomes.inc({ job_type: job.jobType, outcome });
      metrics.duration.observe({ job_type: job.jobType }, (performance.now() - startedAt) / 1000);
    };

    try {
      if (!executor) throw JobFailure.internal('INTERNAL_NO_EXECUTOR', `this worker cannot run ${job.jobType} jobs`);
      const result = await executor.execute({
        claimed,
        signal: controller.signal,
        reportProgress: (value) => {
          progress = Math.max(progress, value);
          reporter.update(progress);
        },
        recordProviderRequest: async (id) => {
          await execution.recordProviderRequest({ jobId: job.id, workerId, providerRequestId: id });
        },
        onProviderRequest: (id, submitted) => {
          predictionId = id;
          if (submitted) metrics.providerSubmissions.inc({ provider: job.snapshot?.providerCode ?? 'none' });
        },
      });
      if (controller.signal.aborted) throw controller.signal.reason;
      const signal = controller.signal;
      let put: { asset: mediaV1.Asset; sha256: string } | undefined;
      if (result.output) {
        const output = result.output;
        // Storing is keyed by the job id: a retry after a blip of media gets the same asset back.
        put = await retryInAttempt('store the output', () => putOutput(media, job, output), signal, logger).catch((error: unknown) => {
          if (signal.aborted) throw signal.reason;
          throw JobFailure.internal('INTERNAL_MEDIA_WRITE', `storing the output failed: ${(error as Error).message}`, { cause: error });
        });
        stored = put.asset;
        this.deps.crashPoint('after-output-stored');
      }
      const done = { jobId: job.id, workerId, outputAssetId: stored?.id ?? '', outputSha256: put?.sha256 ?? '' };
      await this.flushCalls(job.id);
      await retryInAttempt('record the success', () => this.deps.batches.complete(done), signal, logger);
      finish('succeeded');
      return ACK;
    } catch (error) {
      return await this.settleFailure(error, controller.signal, { job, attempt: claimed.attempt, stored, predictionId, finish });
    } finally {
      unclock();
      reporter.stop();
      this.running.delete(job.id);
    }
  }

  private async settleFailure(
    error: unknown,
    signal: AbortSignal,
    state: {
      job: CancellableJob & { userId: string; jobType: string };
      attempt: number;
      stored?: mediaV1.Asset;
      predictionId?: string;
      finish: (o: string) => void;
    },
  ): Promise<Settlement> {
    const { execution, logger, workerId } = this.deps;
    const { job } = state;
    const cause = signal.aborted && signal.reason instanceof AttemptAborted ? signal.reason.abortCause : undefined;

    // Refused by the jobs service: the lease is gone. The reason says whether our output is an orphan.
    if (error instanceof AppError && error.code === ErrorCode.ABORTED) {
      if (state.stored && outputIsOrphan(error.reason)) await this.removeOrphan(state.stored, job.userId);
      if (error.reason === 'JOB_CANCELLED') await this.cancelAtProvider(job, state.attempt, state.predictionId);
      state.finish(error.reason === 'JOB_CANCELLED' ? 'cancelled' : 'lease_lost');
      return ACK;
    }
    if (cause === 'cancelled') {
      await this.cancelAtProvider(job, state.attempt, state.predictionId);
      if (state.stored) await this.removeOrphan(state.stored, job.userId);
      state.finish('cancelled');
      return ACK;
    }
    if (cause === 'lease-lost') {
      state.finish('lease_lost');
      return ACK;
    }
    if (cause === 'shutdown') {
      // Handed back, not charged: the next attempt resumes the recorded provider request.
      await this.flushCalls(job.id);
      await execution.releaseJob({ jobId: job.id, workerId, reason: 'worker shutdown' }).catch((releaseError: unknown) => {
        logger.warn({ jobId: job.id, err: releaseError }, 'release failed; the lease will expire instead');
      });
      state.finish('released');
      return ACK;
    }
    if (isTransientError(error)) {
      logger.warn({ jobId: job.id, err: error }, 'jobs service unreachable; leaving the job to its lease');
      return RETRY_LATER;
    }

    // A timeout leaves the prediction running: the next attempt resumes it and pays nothing more.
    const failure =
      cause === 'timeout' && !isTransientFailure(error) ? JobFailure.timeout(`the attempt exceeded its time budget`) : classify(error);
    if (failure.abandonsPrediction) await this.cancelAtProvider(job, state.attempt, state.predictionId);
    await this.flushCalls(job.id);
    if (failure.errorClass === jobsExecutionV1.ErrorClass.INTERNAL)
      logger.error({ jobId: job.id, err: error }, 'attempt failed on our side');
    try {
      const answer = await execution.failJob({
        jobId: job.id,
        workerId,
        errorClass: failure.errorClass,
        errorCode: failure.code,
        publicMessage: failure.publicMessage,
        internalMessage: failure.message.slice(0, 4000),
        retryable: failure.retryable,
        abandonProviderRequest: failure.abandonsPrediction,
      });
      if (answer.outcome === FailOutcome.FAILED) {
        // The job is over: nothing will poll its prediction again.
        if (!failure.abandonsPrediction) await this.cancelAtProvider(job, state.attempt, state.predictionId);
        if (state.stored) await this.removeOrphan(state.stored, job.userId);
      }
      state.finish(answer.outcome === FailOutcome.REQUEUED ? 'requeued' : 'failed');
      return ACK;
    } catch (failError) {
      if ((failError instanceof AppError && failError.code === ErrorCode.ABORTED) || isTransientError(failError)) {
        return this.settleFailure(failError, signal, state);
      }
      logger.error({ jobId: job.id, err: failError }, 'FailJob was refused; leaving the job to its lease');
      return RETRY_LATER;
    }
  }

  private async cancelAtProvider(job: CancellableJob, attempt: number, predictionId: string | undefined): Promise<void> {
    if (!predictionId || !job.snapshot) return;
    const { providerCode, providerModel, modelVersion } = job.snapshot;
    await this.deps.providers
      .forCancel(job.id, providerCode, predictionId)
      .then((vendor) => {
        if (!vendor) return;
        const { client, credential } = vendor;
        const provider =
          this.deps.calls?.clientFor(client, {
            jobId: job.id,
            attempt,
            providerCode,
            providerModel,
            modelVersion,
            credential: { mode: credential.mode, id: credential.id },
          }) ?? client;
        return provider.cancel(predictionId);
      })
      .catch((error: unknown) => this.deps.logger.warn({ predictionId, err: error }, 'cancel at the provider failed'));
  }

  /**
   * Waits until the job's vendor calls are in the usage ledger, before its outcome is recorded (the
   * lease is kept meanwhile). The ledger sends a write jobs cannot take again until it can — the
   * outcome's own call needs jobs too; only a stopping worker gives calls up, at the end of its
   * grace (logged), and the outcome goes on.
   */
  private async flushCalls(jobId: string): Promise<void> {
    await this.deps.calls?.flush(jobId);
  }

  private async removeOrphan(asset: mediaV1.Asset, ownerUserId: string): Promise<void> {
    await deleteOrphan(this.deps.media, asset.id, ownerUserId).catch((error: unknown) =>
      this.deps.logger.warn({ assetId: asset.id, err: error }, 'orphan output could not be deleted'),
    );
  }
}
