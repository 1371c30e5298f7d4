import { jobsV1 } from '@atelier/contracts';
import type { ServerStreamCall } from '@atelier/grpc';
import type { Counter } from '@atelier/metrics';

/** Queued jobs one replica follows at once; past it a queued job is read from jobs every time. */
export const QUEUED_VIEWS_MAX = 10_000;
/** A followed job nobody read for this long is let go: its WatchJob call ends. */
export const QUEUED_VIEW_IDLE_MS = 30_000;

/** Opens jobs' WatchJob for a user's job, sending only versions after `afterVersion`. */
export type OpenWatch = (
  jobId: string,
  userId: string,
  afterVersion: number,
  signal: AbortSignal,
) => ServerStreamCall<jobsV1.WatchJobResponse>;

interface Followed {
  /** The user jobs answered the view to: its owner (GetJob and WatchJob are owner-only). */
  ownerUserId: string;
  job: jobsV1.Job;
  /** When jobs answered this view (GetJob, or a change it pushed): how old its queue position is. */
  answeredAt: number;
  lastReadAt: number;
  stop: AbortController;
}

export interface QueuedJobViewsOptions {
  /** How old a view's queue position may be when answered; 0: never answered from memory. */
  freshMs: number;
  maxEntries?: number;
  idleMs?: number;
  now?: () => number;
  /** Told, per read of a job not known to be finished, whether the view answered it (hit) or jobs must (miss). */
  lookups?: Counter<'result'>;
}

/**
 * The latest view of each queued job a user polls, so that most polls of a queued job are
 * answered without asking jobs (GetJob: a gRPC call and a statement that counts the queue).
 *
 * A view is answered from memory only while all of this holds:
 * - it is the caller's own job (anyone else's read goes to jobs: 404, as for a job that does not exist);
 * - its WatchJob call is open: jobs pushes every change of the job's version (status, progress,
 *   attempts, error) as it commits, on any replica (LISTEN/NOTIFY), so a claim, a cancel or a
 *   start deadline that ends it reaches the gateway within milliseconds and the view is dropped
 *   at once (a job that is no longer queued is read from jobs again; an ended one is then
 *   remembered by FinishedJobCache). A call that ends or fails drops the view;
 * - jobs answered it (GetJob or a push) at most `freshMs` ago: the queue position, which moves
 *   when jobs ahead of it leave the queue and is not pushed, is at most that old. Past it the
 *   next read asks jobs again, keeping the call open. The timings are advanced by the view's
 *   age, as jobs would compute them now (a queued job's time queued and total time grow).
 *
 * What may still be stale: a change jobs made in the milliseconds before its push arrives (as
 * any read in flight), and, if a change notice were lost between jobs replicas, the view for at
 * most `freshMs` (jobs' own safety re-read then pushes it within WATCH_REREAD_MS). Bounded: at
 * most QUEUED_VIEWS_MAX jobs followed (past it, reads go to jobs), each let go after
 * QUEUED_VIEW_IDLE_MS without a read.
 */
export class QueuedJobViews {
  private readonly followed = new Map<string, Followed>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly now: () => number;
  private readonly idleMs: number;

  constructor(
    private readonly openWatch: OpenWatch,
    private readonly options: QueuedJobViewsOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.idleMs = options.idleMs ?? QUEUED_VIEW_IDLE_MS;
    this.sweeper = setInterval(() => this.letGoIdle(), Math.max(100, this.idleMs / 2));
    this.sweeper.unref();
  }

  /** The caller's queued job as jobs last told it, aged to now; undefined: ask jobs. */
  current(jobId: string, callerUserId: string): jobsV1.Job | undefined {
    const view = this.fresh(jobId, callerUserId);
    this.options.lookups?.inc({ result: view ? 'hit' : 'miss' });
    return view;
  }

  private fresh(jobId: string, callerUserId: string): jobsV1.Job | undefined {
    const entry = this.followed.get(jobId);
    if (!entry || entry.ownerUserId !== callerUserId) return undefined;
    const now = this.now();
    const age = now - entry.answeredAt;
    if (age > this.options.freshMs) return undefined;
    entry.lastReadAt = now;
    return aged(entry.job, Math.max(0, age));
  }

  /** A view jobs just answered to `callerUserId` (its owner): a queued one is followed, any other let go. */
  answered(job: jobsV1.Job, callerUserId: string): void {
    const entry = this.followed.get(job.id);
    if (job.status !== jobsV1.JobStatus.QUEUED) {
      if (entry) this.letGo(job.id, entry);
      return;
    }
    const now = this.now();
    if (entry) {
      // An answer that left jobs before a change already pushed is older than what is held.
      if (entry.ownerUserId === callerUserId && job.version >= entry.job.version) {
        entry.job = job;
        entry.answeredAt = now;
        entry.lastReadAt = now;
      }
      return;
    }
    if (this.options.freshMs <= 0 || this.followed.size >= (this.options.maxEntries ?? QUEUED_VIEWS_MAX)) return;
    const followed: Followed = { ownerUserId: callerUserId, job, answeredAt: now, lastReadAt: now, stop: new AbortController() };
    this.followed.set(job.id, followed);
    void this.follow(job.id, followed);
  }

  /** Jobs refused a read of the job (it is gone, or not the caller's): nothing of it is kept. */
  forget(jobId: string): void {
    const entry = this.followed.get(jobId);
    if (entry) this.letGo(jobId, entry);
  }

  /** How many queued jobs are followed now. */
  get size(): number {
    return this.followed.size;
  }

  close(): void {
    clearInterval(this.sweeper);
    for (const [jobId, entry] of this.followed) this.letGo(jobId, entry);
  }

  private async follow(jobId: string, entry: Followed): Promise<void> {
    try {
      const call = this.openWatch(jobId, entry.ownerUserId, entry.job.version, entry.stop.signal);
      for await (const { job } of call) {
        if (!job || job.status !== jobsV1.JobStatus.QUEUED) return;
        if (job.version >= entry.job.version) {
          entry.job = job;
          entry.answeredAt = this.now();
        }
      }
    } catch {
      // The call failed (jobs restarting, the job gone): the next read asks jobs and follows again.
    } finally {
      this.letGo(jobId, entry);
    }
  }

  private letGo(jobId: string, entry: Followed): void {
    if (this.followed.get(jobId) === entry) this.followed.delete(jobId);
    entry.stop.abort();
  }

  private letGoIdle(): void {
    const now = this.now();
    for (const [jobId, entry] of this.followed) if (now - entry.lastReadAt > this.idleMs) this.letGo(jobId, entry);
  }
}

/**
 * The view as jobs would answer it `ageMs` later, while still queued: the total time grows, and
 * so does the time queued of a job never started (a requeued one's counts up to its first start).
 */
function aged(job: jobsV1.Job, ageMs: number): jobsV1.Job {
  const timings = job.timings;
  if (ageMs === 0 || !timings) return job;
  return {
    ...job,
    timings: {
      ...timings,
      totalMs: timings.totalMs + ageMs,
      queuedMs: timings.attempts.length === 0 ? timings.queuedMs + ageMs : timings.queuedMs,
    },
  };
}
