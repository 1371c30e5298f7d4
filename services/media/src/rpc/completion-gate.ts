import { UnavailableError } from '@atelier/errors';

/** How long a completion waits for a free slot before it is refused (the client retries). */
export const COMPLETION_QUEUE_WAIT_MS = 5_000;

/**
 * Guards CompleteUpload inside one process: concurrent completions of the same upload join one
 * check (single flight per asset id), and at most `maxRunning` checks run at once — each holds a
 * ranged read, a server-side copy and a streaming hash, so a burst of calls cannot exhaust memory
 * or the store's connections. The database's state machine stays the source of truth across
 * replicas (uploading → ready happens once); this only saves work and memory within a replica.
 */
export class CompletionGate<T> {
  private readonly inFlight = new Map<string, Promise<T>>();
  private readonly waiting: (() => void)[] = [];
  private running = 0;

  constructor(
    private readonly maxRunning: number,
    private readonly queueWaitMs = COMPLETION_QUEUE_WAIT_MS,
  ) {}

  /** Runs `check` for `key`, or joins the run already under way for it. */
  run(key: string, check: () => Promise<T>): Promise<T> {
    const current = this.inFlight.get(key);
    if (current) return current;
    const started = this.withSlot(check).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, started);
    return started;
  }

  /** Checks running now (for tests and metrics). */
  get active(): number {
    return this.running;
  }

  private async withSlot(check: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await check();
    } finally {
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (this.running < this.maxRunning) {
      this.running += 1;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const grant = () => {
        clearTimeout(timer);
        this.running += 1;
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(grant), 1);
        reject(
          new UnavailableError('too many uploads are being completed right now; try again in a moment', {
            reason: 'UPLOAD_COMPLETIONS_BUSY',
            retryAfterSeconds: 1,
          }),
        );
      }, this.queueWaitMs);
      this.waiting.push(grant);
    });
  }

  private release(): void {
    this.running -= 1;
    this.waiting.shift()?.();
  }
}
