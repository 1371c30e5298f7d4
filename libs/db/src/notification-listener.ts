import pg from 'pg';

/**
 * One LISTEN connection per replica for every channel a service hears (jobs: outbox wake-ups and
 * job changes; media and community: their outbox wake-ups): each handler gets its channel's
 * payloads. The connection is re-made a second after it drops (a database restart); what was sent
 * meanwhile is lost, so every user of it has a slower fallback (a relay's poll, the watch streams'
 * safety re-read).
 */
export class NotificationListener {
  private readonly handlers = new Map<string, (payload: string | undefined) => void>();
  private client: pg.Client | undefined;
  private stopped = false;
  private reconnectTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: { databaseUrl: string; logger: { warn(fields: object, message: string): void }; applicationName: string },
  ) {}

  /** Registers the handler of a channel; call before start(). */
  on(channel: string, handler: (payload: string | undefined) => void): void {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`not a plain channel name: ${channel}`);
    this.handlers.set(channel, handler);
  }

  async start(): Promise<void> {
    await this.listen();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    await this.client?.end().catch(() => {});
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.options.databaseUrl, application_name: this.options.applicationName });
    client.on('notification', (message) => this.handlers.get(message.channel)?.(message.payload));
    client.on('error', () => this.scheduleReconnect(client));
    client.on('end', () => this.scheduleReconnect(client));
    try {
      await client.connect();
      for (const channel of this.handlers.keys()) await client.query(`LISTEN ${channel}`);
      this.client = client;
    } catch (error) {
      this.options.logger.warn({ err: error, channels: [...this.handlers.keys()] }, 'LISTEN failed; retrying');
      this.scheduleReconnect(client);
    }
  }

  private scheduleReconnect(client: pg.Client): void {
    if (this.stopped || this.reconnectTimer || (this.client && this.client !== client)) return;
    this.client = undefined;
    client.end().catch(() => {});
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.listen();
    }, 1_000);
    this.reconnectTimer.unref();
  }
}

/**
 * Runs `send` when asked, at most one at a time and at most once per minIntervalMs, however often
 * it is asked: NOTIFY takes a cluster-wide lock at commit, so one per change would serialise
 * commits. A request made while one runs is served by one more run after it.
 */
export function coalescedNotifier(
  send: () => Promise<void>,
  options: { minIntervalMs: number; onError: (error: unknown) => void },
): { request(): void; stop(): void } {
  let requested = false;
  let running = false;
  let stopped = false;
  let lastAt = 0;
  const run = async (): Promise<void> => {
    if (running || !requested || stopped) return;
    running = true;
    try {
      const wait = lastAt + options.minIntervalMs - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      requested = false;
      lastAt = Date.now();
      await send();
    } catch (error) {
      options.onError(error);
    } finally {
      running = false;
    }
    if (requested) void run();
  };
  return {
    request() {
      requested = true;
      void run();
    },
    stop() {
      stopped = true;
    },
  };
}
