import pg from 'pg';
import type { SqlPool } from '@atelier/db';
import type { Logger } from '@atelier/logging';

export const OUTBOX_CHANNEL = 'jobs_outbox';

/**
 * Wake-ups for the outbox relays of every replica. After a commit that wrote outbox rows, the
 * writer wakes its own relay directly and asks for a NOTIFY so the others wake too. NOTIFY takes
 * a cluster-wide lock at commit, so notifications are coalesced: at most one in flight and at
 * most one per minIntervalMs, whatever the commit rate. A LISTEN connection per replica turns
 * notifications into wake-ups and reconnects when the database restarts.
 */
export class OutboxWakeups {
  private listener: pg.Client | undefined;
  private stopped = false;
  private notifyPending = false;
  private notifying = false;
  private lastNotifyAt = 0;
  private reconnectTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: {
      databaseUrl: string;
      pool: SqlPool;
      logger: Logger;
      onWake: () => void;
      minIntervalMs?: number;
    },
  ) {}

  async start(): Promise<void> {
    await this.listen();
  }

  /** Call after a commit that wrote outbox rows. */
  signal(): void {
    this.options.onWake();
    this.notifyPending = true;
    void this.flushNotify();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    await this.listener?.end().catch(() => {});
  }

  private async flushNotify(): Promise<void> {
    if (this.notifying || !this.notifyPending || this.stopped) return;
    const wait = this.lastNotifyAt + (this.options.minIntervalMs ?? 50) - Date.now();
    this.notifying = true;
    try {
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      this.notifyPending = false;
      this.lastNotifyAt = Date.now();
      await this.options.pool.query(`SELECT pg_notify('${OUTBOX_CHANNEL}', '')`);
    } catch (error) {
      this.options.logger.debug({ err: error }, 'outbox NOTIFY failed; relays still poll');
    } finally {
      this.notifying = false;
    }
    if (this.notifyPending) void this.flushNotify();
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.options.databaseUrl, application_name: 'jobs-outbox-listener' });
    client.on('notification', () => this.options.onWake());
    client.on('error', () => this.scheduleReconnect(client));
    client.on('end', () => this.scheduleReconnect(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${OUTBOX_CHANNEL}`);
      this.listener = client;
    } catch (error) {
      this.options.logger.warn({ err: error }, 'outbox LISTEN failed; retrying');
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
