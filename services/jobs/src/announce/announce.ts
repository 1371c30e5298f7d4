import type { JobRow } from '../db/job-row.js';
import type { ClaimedOutboxRow } from '../db/outbox-row.js';
import type { JobWatchHub } from './job-watch-hub.js';
import type { JobsMetrics } from '../jobs-metrics.js';

/** What a committed transition tells the rest of the process. */
export type Announcement =
  | 'created' // a new job and its dispatch
  | 'claimed' // an attempt started
  | 'progressed' // progress moved forward
  | 'requeued' // back to queued with a new dispatch (retry, release, reaped)
  | 'ended'; // succeeded, failed or cancelled, with its lifecycle event

/** Which announcements wrote outbox rows (the relay must wake). */
const WROTE_OUTBOX: Readonly<Record<Announcement, boolean>> = {
  created: true,
  claimed: false,
  progressed: false,
  requeued: true,
  ended: true,
};

export interface AnnounceTargets {
  /** Wakes this replica's relay and, through NOTIFY, the others': rows were written pending. */
  onOutboxWrite: () => void;
  /** This replica's relay, which publishes the rows transitions wrote claimed for it. */
  relay: { publishClaimed(rows: readonly ClaimedOutboxRow[]): void };
  watchHub: JobWatchHub;
  metrics: JobsMetrics;
}

/**
 * The one step every transition ends with, after its commit: hand the outbox rows it wrote
 * claimed to this replica's relay, or wake the relays when it wrote rows pending (no relay could
 * claim them, or a dispatch is due later: the relay sleeps until the next due row); wake WatchJob
 * streams of the changed jobs (a new job has no watcher yet); count.
 */
export function announce(targets: AnnounceTargets, what: 'progressed', jobs: readonly { id: string }[]): void;
export function announce(targets: AnnounceTargets, what: Exclude<Announcement, 'progressed'>, rows: readonly JobRow[]): void;
export function announce(targets: AnnounceTargets, what: Announcement, jobs: readonly { id: string }[]): void {
  if (jobs.length === 0) return;
  // Only 'progressed' passes bare ids; every other announcement passes the changed rows.
  const rows = jobs as readonly JobRow[];
  if (WROTE_OUTBOX[what]) {
    let pending = what === 'requeued';
    for (const row of rows) {
      if (row.claimed_outbox) targets.relay.publishClaimed(row.claimed_outbox);
      else pending = true;
    }
    if (pending) targets.onOutboxWrite();
  }
  for (const row of rows) {
    if (what !== 'created') targets.watchHub.changed(row.id);
    if (what === 'created') targets.metrics.created.inc({ job_type: row.job_type });
    else if (what === 'claimed') targets.metrics.claimed.inc({ job_type: row.job_type });
    else if (what === 'ended') targets.metrics.ended(row);
  }
}
