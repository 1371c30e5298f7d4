import { randomBytes } from 'node:crypto';
import { coalescedNotifier, type NotificationListener, type SqlPool } from '@atelier/db';
import type { Logger } from '@atelier/logging';

export const JOB_CHANGES_CHANNEL = 'jobs_watch';

/** Ids per NOTIFY: a payload must stay under Postgres's 8,000 bytes (a uuid is 36). */
const IDS_PER_NOTIFY = 150;

/**
 * Tells every jobs replica which jobs changed, so their WatchJob streams wake at once wherever the
 * change was made. Changed ids are batched into coalesced NOTIFYs sent outside the transactions
 * that made them; the replica's NotificationListener hears the others' (streams still re-read on
 * their slow safety timer when a notice is lost). A replica ignores its own notices: it woke its
 * streams directly.
 */
export class JobChangeNotices {
  private readonly origin = randomBytes(6).toString('hex');
  private readonly pending = new Set<string>();
  private readonly notify;

  constructor(options: {
    pool: SqlPool;
    listener: NotificationListener;
    logger: Logger;
    /** A job changed on another replica. */
    onRemoteChange: (jobId: string) => void;
    minIntervalMs?: number;
  }) {
    options.listener.on(JOB_CHANGES_CHANNEL, (payload) => {
      const [origin, ids] = (payload ?? '').split('|', 2);
      if (!ids || origin === this.origin) return;
      for (const jobId of ids.split(',')) if (jobId) options.onRemoteChange(jobId);
    });
    this.notify = coalescedNotifier(
      async () => {
        const ids = [...this.pending];
        this.pending.clear();
        for (let i = 0; i < ids.length; i += IDS_PER_NOTIFY) {
          await options.pool.query({
            name: 'jobs.notify_job_changes',
            text: 'SELECT pg_notify($1, $2)',
            values: [JOB_CHANGES_CHANNEL, `${this.origin}|${ids.slice(i, i + IDS_PER_NOTIFY).join(',')}`],
          });
        }
      },
      {
        minIntervalMs: options.minIntervalMs ?? 50,
        onError: (error) =>
          options.logger.debug({ err: error }, 'job change NOTIFY failed; other replicas find the change on their safety re-read'),
      },
    );
  }

  /** Call after a commit that changed the job (its version moved). */
  publish(jobId: string): void {
    this.pending.add(jobId);
    this.notify.request();
  }

  stop(): void {
    this.notify.stop();
  }
}
