import type { jobsExecutionV1 } from '@atelier/contracts';
import { isTransientError } from '@atelier/errors';
import type { PromiseClient } from '@atelier/grpc';
import { backoffDelayMs } from '@atelier/lifecycle';
import type { Logger } from '@atelier/logging';
import { JOB_QUEUES, type JobQueueName } from '@atelier/nats';
import { inSpan, SpanKind } from '@atelier/telemetry';
import type { WorkerMetrics } from '../worker-metrics.js';

/** After a failed AwaitJobs: jobs away or restarting (from half a second up to ten), or refused (a minute). */
const UNREACHABLE_BACKOFF = { baseMs: 500, maxMs: 10_000 };
const REFUSED_PAUSE_MS = 60_000;
/** Beyond the wait, the time an answer has to arrive before the call is given up. */
const ANSWER_MARGIN_MS = 5_000;
/** After an empty answer that came early (a jobs replica stopping answers every wait at once). */
const EARLY_EMPTY_PAUSE_MS = 250;
/** The most jobs of one queue an AwaitJobs call may ask for (jobs' limit). */
const MAX_SLOTS_PER_CALL = 500;

/** What the awaiter needs of a queue's consumer: its free slots, shared with its pulls. */
export interface QueueSlotsOwner {
  readonly freeSlots: number;
  onSlotFreed(listener: () => void): void;
  runHandedOver(run: (drain: AbortSignal) => Promise<unknown>): boolean;
}

export interface JobAwaiterOptions {
  execution: PromiseClient<jobsExecutionV1.JobExecutionServiceClient>;
  workerId: string;
  queues: Readonly<Record<JobQueueName, QueueSlotsOwner>>;
  /** Runs a job claimed for this worker (JobRunner.runHandedOver). */
  run: (claimed: jobsExecutionV1.ClaimedJob, drain: AbortSignal) => Promise<unknown>;
  /** How long one AwaitJobs call waits at jobs (WORKER_AWAIT_WAIT_MS). */
  waitMs: number;
  /**
   * AwaitJobs calls kept open at once (WORKER_AWAIT_CALLS), never more than the free slots: while
   * some are answered and sent again, the others wait, so a busy worker is still waiting when the
   * next commit comes (bench/README.md, "the hand-off").
   */
  calls: number;
  logger: Logger;
  metrics: WorkerMetrics;
}

/**
 * While this worker has free slots it keeps AwaitJobs calls open at jobs: jobs created at that
 * replica are claimed for it and answered there, and run in the slots of their queue beside the
 * jobs pulled from NATS (which still bring every other job). Up to `calls` calls, sharing
 * the free slots. Stopping gives the calls up: jobs claimed for them
 * meanwhile are released by jobs; jobs answered once the drain has begun are handed back from here.
 */
export class JobAwaiter {
  private readonly stopping = new AbortController();
  private loops: Promise<void>[] = [];
  private callsInFlight = 0;
  /** Slots offered by the calls in flight, per queue: not offered twice. */
  private readonly offered: Record<JobQueueName, number> = { interactive: 0, background: 0 };
  /** The sleeps to end on a freed slot (or slots a call no longer offers); every sleep ends on stop. */
  private readonly waitingForSlot = new Set<() => void>();
  private readonly sleeping = new Set<() => void>();

  constructor(private readonly options: JobAwaiterOptions) {
    for (const queue of JOB_QUEUES) options.queues[queue].onSlotFreed(() => this.slotsChanged());
  }

  start(): void {
    if (this.loops.length === 0) this.loops = Array.from({ length: this.options.calls }, () => this.run());
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    for (const wake of [...this.sleeping]) wake();
    await Promise.all(this.loops);
  }

  private slotsChanged(): void {
    for (const wake of [...this.waitingForSlot]) wake();
  }

  /** Sleeps until woken (a freed slot when `forSlot`, the stop), or for `ms` at most. */
  private sleep(ms: number | undefined, forSlot = false): Promise<void> {
    if (this.stopping.signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(() => done(), ms);
      const done = () => {
        clearTimeout(timer);
        this.sleeping.delete(done);
        this.waitingForSlot.delete(done);
        resolve();
      };
      this.sleeping.add(done);
      if (forSlot) this.waitingForSlot.add(done);
    });
  }

  private async run(): Promise<void> {
    const { execution, workerId, queues, waitMs, logger } = this.options;
    const stopped = this.stopping.signal;
    // The slots no call offers yet, shared with the calls not sent: each in line covers a part.
    const available = (queue: JobQueueName) =>
      Math.min(
        MAX_SLOTS_PER_CALL,
        Math.ceil(Math.max(0, queues[queue].freeSlots - this.offered[queue]) / (this.options.calls - this.callsInFlight)),
      );
    let failures = 0;
    while (!stopped.aborted) {
      const slots = { interactive: available('interactive'), background: available('background') };
      if (slots.interactive + slots.background === 0) {
        await this.sleep(undefined, true);
        continue;
      }
      this.offered.interactive += slots.interactive;
      this.offered.background += slots.background;
      this.callsInFlight += 1;
      const sentAt = performance.now();
      try {
        const { jobs } = await execution.awaitJobs(
          { workerId, interactiveSlots: slots.interactive, backgroundSlots: slots.background, waitMs },
          { deadlineMs: waitMs + ANSWER_MARGIN_MS, signal: stopped },
        );
        failures = 0;
        // Its jobs take their slots before the call's offer is withdrawn: never offered twice.
        for (const job of jobs) this.accept(job);
        this.withdraw(slots);
        // Answered empty long before the wait was over: that replica is stopping. Not again at once.
        if (jobs.length === 0 && performance.now() - sentAt < waitMs / 2) await this.sleep(EARLY_EMPTY_PAUSE_MS);
      } catch (error) {
        this.withdraw(slots);
        if (stopped.aborted) break;
        failures += 1;
        const transient = isTransientError(error);
        const pauseMs = transient ? backoffDelayMs(failures, UNREACHABLE_BACKOFF) : REFUSED_PAUSE_MS;
        if (transient) logger.warn({ err: error, retryInMs: pauseMs }, 'waiting for jobs at jobs failed; NATS brings them meanwhile');
        else logger.error({ err: error, retryInMs: pauseMs }, 'jobs refused AwaitJobs; NATS brings every job meanwhile');
        await this.sleep(pauseMs);
      }
    }
  }

  private withdraw(slots: Record<JobQueueName, number>): void {
    this.callsInFlight -= 1;
    this.offered.interactive -= slots.interactive;
    this.offered.background -= slots.background;
    this.slotsChanged();
  }

  /** Runs a handed-over job in a slot of its queue, or hands it back when this worker is stopping. */
  private accept(job: jobsExecutionV1.HandedOverJob): void {
    const { queues, metrics, logger } = this.options;
    const claimed = job.claimed;
    if (!claimed?.job) return;
    const queue: JobQueueName = job.queue === 'background' ? 'background' : 'interactive';
    metrics.handedOver.inc({ queue });
    // An answer read after its lease ran out (this worker was frozen with it in flight): the job is
    // another worker's by now, or will be once the reaper requeues it. Nothing of it is started here.
    if (claimed.leaseExpiresAt && claimed.leaseExpiresAt.getTime() <= Date.now()) {
      logger.warn(
        { jobId: claimed.job.id, leaseExpiresAt: claimed.leaseExpiresAt },
        'a handed-over job came after its lease expired; left to the reaper',
      );
      return;
    }
    const started = !this.stopping.signal.aborted && queues[queue].runHandedOver((drain) => this.runTraced(job, claimed, queue, drain));
    if (!started) {
      void this.options.execution
        .releaseJob({ jobId: claimed.job.id, workerId: this.options.workerId, reason: 'worker shutdown' })
        .catch((error: unknown) => logger.warn({ jobId: claimed.job?.id, err: error }, 'release failed; the lease will expire instead'));
    }
  }

  /** The job's trace continues from the context jobs handed over with it, as from a dispatch's headers. */
  private runTraced(job: jobsExecutionV1.HandedOverJob, claimed: jobsExecutionV1.ClaimedJob, queue: JobQueueName, drain: AbortSignal) {
    const run = () => this.options.run(claimed, drain);
    if (!job.traceContext.traceparent) return run();
    return inSpan(
      `jobs hand-over ${queue} process`,
      {
        kind: SpanKind.CONSUMER,
        parent: job.traceContext,
        attributes: { 'messaging.operation.type': 'process', 'atelier.dispatch.queue': queue, 'atelier.job.id': claimed.job!.id },
      },
      run,
    );
  }
}
