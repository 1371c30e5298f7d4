// A worker frozen (SIGSTOP) mid-job and the job's takeover by another worker: the scenario the
// fault suite asserts (worker-freeze.chaos.test.ts) and bench:takeover times, with the legs of the
// takeover read from what jobs wrote (the lease, job_events, the outbox).
import type pg from 'pg';
import { waitUntil, type ServiceProcess } from '@atelier/testing';
import type { ChaosPlatform } from './chaos-platform.js';

/** The lease of issue 31's measurement: shorter than the default 60 s, as an operator may set it. */
export const TAKEOVER_LEASE_MS = 15_000;

/**
 * The settings a takeover is measured with: that lease, every other setting of jobs and the worker
 * at its default — the test kit shortens the worker's ack wait and poll interval for other suites,
 * and the frozen worker's ack wait is part of what is measured.
 */
export const TAKEOVER_SETTINGS = {
  jobsEnv: { LEASE_TTL_MS: String(TAKEOVER_LEASE_MS) },
  workerEnv: { WORKER_ACK_WAIT_INTERACTIVE_MS: '30000', WORKER_ACK_WAIT_BACKGROUND_MS: '60000', WORKER_POLL_INTERVAL_MS: '500' },
} as const;

/**
 * The documented bound (docs/fault-model.md): a job whose worker froze succeeds on another within
 * the lease + 5 s of the freeze, when its prediction is done by then.
 */
export const TAKEOVER_BOUND_MS = TAKEOVER_LEASE_MS + 5_000;

/** A job's holder, stopped (SIGSTOP) or cut off from jobs and NATS while the job ran. */
export interface FrozenHolder {
  jobId: string;
  /** The worker that held the job. */
  frozen: ServiceProcess;
  /** Its lease owner id (`<host>/<pid>/<random>`). */
  frozenOwner: string;
  /** Date.now() just after it was stopped or cut off. */
  frozenAt: number;
}

/**
 * Creates a stylize job whose prediction takes `predictionMs` at the vendor and waits until a
 * worker holds it and recorded its prediction (the vendor charged it). Answers the job and the
 * worker the job's lease names (a worker id holds its pid), never a guess.
 */
export async function jobHeldMidPrediction(
  chaos: ChaosPlatform,
  key: string,
  predictionMs: number,
): Promise<{ jobId: string; holder: ServiceProcess; owner: string }> {
  const { api, db, platform } = chaos;
  const input = await api.uploadPhoto();
  const created = await api.createJob(await api.stylizeBody(input, `${key} #sim-latency=${predictionMs}`), key);
  if (created.status !== 201) throw new Error(`create answered ${created.status} ${JSON.stringify(created.body)}`);
  const jobId = created.body.job.id;
  let owner = '';
  await waitUntil(
    async () => {
      const { rows } = await db.query<{ lease_owner: string | null; provider_request_id: string | null }>(
        `SELECT lease_owner, provider_request_id FROM jobs.generation_jobs WHERE id = $1 AND status = 'running'`,
        [jobId],
      );
      owner = rows[0]?.lease_owner ?? '';
      return Boolean(owner && rows[0]!.provider_request_id);
    },
    { what: 'a worker holds the job and recorded its prediction', timeoutMs: 20_000 },
  );
  const holder = platform.workers.find((worker) => worker.child.exitCode === null && owner.split('/')[1] === String(worker.child.pid));
  if (!holder) throw new Error(`no running worker has the lease owner's pid (${owner})`);
  return { jobId, holder, owner };
}

/** jobHeldMidPrediction, then the holder stopped (SIGSTOP). */
export async function freezeHolderMidJob(chaos: ChaosPlatform, key: string, predictionMs: number): Promise<FrozenHolder> {
  const { jobId, holder, owner } = await jobHeldMidPrediction(chaos, key, predictionMs);
  holder.pause();
  return { jobId, frozen: holder, frozenOwner: owner, frozenAt: Date.now() };
}

/** Milliseconds after the freeze at which each step of the takeover happened (null: it did not). */
export interface TakeoverLegs {
  /** The frozen worker's lease ran out (its last heartbeat + the lease). */
  leaseExpired: number | null;
  /** The reaper requeued the job. */
  reaped: number | null;
  /** The new dispatch was due (the requeue's delay). */
  dispatchDue: number | null;
  /** The relay published the new dispatch to NATS. */
  redispatched: number | null;
  /** Another worker claimed the job. */
  claimed: number | null;
  succeeded: number | null;
  /** Who claimed the job after the freeze, and who completed it. */
  claimedBy: string | null;
  completedBy: string | null;
}

/**
 * The takeover's steps as jobs recorded them. `leaseExpiresAt` is the frozen worker's last lease
 * (read after the freeze; the reaper clears it). Postgres runs on this machine: its clock is ours.
 */
export async function readTakeoverLegs(db: pg.Pool, holder: FrozenHolder, leaseExpiresAt: Date | null): Promise<TakeoverLegs> {
  const since = (at: Date | null | undefined) => (at ? at.getTime() - holder.frozenAt : null);
  const events = await db.query<{ from_status: string | null; to_status: string; actor: string; occurred_at: Date }>(
    `SELECT from_status, to_status, actor, occurred_at FROM jobs.job_events WHERE job_id = $1 ORDER BY id`,
    [holder.jobId],
  );
  const reapedAt = events.rows.findIndex((event) => event.actor === 'reaper');
  const reaped = events.rows[reapedAt];
  const after = reapedAt === -1 ? [] : events.rows.slice(reapedAt + 1);
  const claim = after.find((event) => event.from_status === 'queued' && event.to_status === 'running');
  const done = events.rows.find((event) => event.to_status === 'succeeded');
  const dispatches = await db.query<{ available_at: Date; published_at: Date | null }>(
    `SELECT available_at, published_at FROM jobs.outbox
      WHERE aggregate_id = $1 AND event_type = 'job.dispatch' AND created_at >= $2 ORDER BY id LIMIT 1`,
    [holder.jobId, reaped?.occurred_at ?? new Date(holder.frozenAt)],
  );
  const dispatch = dispatches.rows[0];
  return {
    leaseExpired: since(leaseExpiresAt),
    reaped: since(reaped?.occurred_at),
    dispatchDue: since(dispatch?.available_at),
    redispatched: since(dispatch?.published_at),
    claimed: since(claim?.occurred_at),
    succeeded: since(done?.occurred_at),
    claimedBy: claim?.actor ?? null,
    completedBy: done?.actor ?? null,
  };
}

/**
 * Follows the frozen worker's lease until the reaper takes it: its last value is when it expired
 * (a heartbeat sent just before the freeze may still land after it).
 */
export async function lastLeaseOf(db: pg.Pool, holder: FrozenHolder, timeoutMs: number): Promise<Date | null> {
  let last: Date | null = null;
  await waitUntil(
    async () => {
      const { rows } = await db.query<{ lease_owner: string | null; lease_expires_at: Date | null }>(
        `SELECT lease_owner, lease_expires_at FROM jobs.generation_jobs WHERE id = $1`,
        [holder.jobId],
      );
      if (rows[0]?.lease_owner !== holder.frozenOwner) return true;
      last = rows[0].lease_expires_at;
      return false;
    },
    { what: "the frozen worker's lease to be taken", timeoutMs, intervalMs: 100 },
  );
  return last;
}

/** A worker's count of the attempts it ended with `outcome` (its /metrics: atelier_worker_jobs_total). */
export async function workerOutcomes(worker: ServiceProcess, outcome: string): Promise<number> {
  const text = await (await fetch(`http://${worker.address}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('atelier_worker_jobs_total{') && line.includes(`outcome="${outcome}"`))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}
