import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { SqlPool } from '@atelier/db';
import type { Logger } from '@atelier/logging';

export const JOB_CHANGES_CHANNEL = 'jobs_watch';

/** Ids per NOTIFY: a payload must stay under Postgres's 8,000 bytes (a uuid is 36). */
const IDS_PER_NOTIFY = 150;

/**
 * Tells every jobs replica which jobs changed, so their WatchJob streams wake at once wherever the
 * change was made. Changes are batched into one NOTIFY per minIntervalMs at most (NOTIFY takes a
 * cluster-wide lock at commit: one per change would serialise commits), sent outside the
 * transactions that made them. One LISTEN connection per replica receives them; it reconnects
 * after a database restart (streams still re-read on their slow safety timer meanwhile). A
 * replica ignores its own notices: it woke its streams directly.
 */
export class JobChangeNotices {
  private readonly origin = randomBytes(6).toString('hex');
  private readonly pending = new Set<string>();
  private listener: pg.Client | undefined;
  private stopped = false;
  private flushing = false;
  private lastNotifyAt = 0;
  private reconnectTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: {
      databaseUrl: string;
      pool: SqlPool;
      logger: Logger;
      /** A job changed on another replica. */
      onRemoteChange: (jobId: string) => void;
      minIntervalMs?: number;
    },
  ) {}

  async start(): Promise<void> {
    await this.listen();
  }

  /** Call after a commit that changed the job (its version moved). */
  publish(jobId: string): void {
    if (this.stopped) return;
    this.pending.add(jobId);
    void this.flush();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    await this.listener?.end().catch(() => {});
  }

  private async flush(): Promise<void> {
    if (this.flushing || this.pending.size === 0 || this.stopped) return;
    this.flushing = true;
    try {
      const wait = this.lastNotifyAt + (this.options.minIntervalMs ?? 50) - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const ids = [...this.pending];
      this.pending.clear();
      this.lastNotifyAt = Date.now();
      for (let i = 0; i < ids.length; i += IDS_PER_NOTIFY) {
        const payload = `${this.origin}|${ids.slice(i, i + IDS_PER_NOTIFY).join(',')}`;
        await this.options.pool.query({
          name: 'jobs.notify_job_changes',
          text: 'SELECT pg_notify($1, $2)',
          values: [JOB_CHANGES_CHANNEL, payload],
        });
      }
    } catch (error) {
      this.options.logger.debug({ err: error }, 'job change NOTIFY failed; other replicas find the change on their safety re-read');
    } finally {
      this.flushing = false;
    }
    if (this.pending.size > 0) void this.flush();
  }

  private receive(payload: string | undefined): void {
    const [origin, ids] = (payload ?? '').split('|', 2);
    if (!ids || origin === this.origin) return;
    for (const jobId of ids.split(',')) if (jobId) this.options.onRemoteChange(jobId);
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.options.databaseUrl, application_name: 'jobs-watch-listener' });
    client.on('notification', (message) => this.receive(message.payload));
    client.on('error', () => this.scheduleReconnect(client));
    client.on('end', () => this.scheduleReconnect(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${JOB_CHANGES_CHANNEL}`);
      this.listener = client;
    } catch (error) {
      this.options.logger.warn({ err: error }, 'job change LISTEN failed; retrying');
      this.scheduleReconnect(client);
    }
  }

  private scheduleReconnect(client: pg.Client): void {
    if (this.stopped || this.reconnectTimer || (this.listener && this.listener !== client)) return;
    this.listener = undefined;
    client.end().catch(() => {});
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.listen();
    }, 1_000);
    this.reconnectTimer.unref();
  }
}
