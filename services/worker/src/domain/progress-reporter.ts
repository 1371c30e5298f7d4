import type { Logger } from '@atelier/logging';

/**
 * Sends one attempt's progress to the jobs service as it changes, at most once per interval: the
 * first value at once, later ones when the interval since the last send has passed (the newest
 * value wins; the ones in between are skipped, never sent late and out of order). Sending is
 * batched across jobs by the caller. When the jobs service answers that the job no longer runs
 * under this worker, onStop fires once.
 */
export class ProgressReporter<StopCause> {
  private sent = -1;
  private latest = -1;
  private lastSentAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly options: {
      send: (progress: number) => Promise<StopCause | undefined>;
      onStop: (cause: StopCause) => void;
      intervalMs: number;
      logger: Logger;
      jobId: string;
    },
  ) {}

  update(progress: number): void {
    if (this.stopped || progress <= this.latest) return;
    this.latest = progress;
    if (this.timer) return;
    const wait = Math.max(0, this.lastSentAt + this.options.intervalMs - Date.now());
    this.timer = setTimeout(() => this.flush(), wait);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private flush(): void {
    this.timer = undefined;
    if (this.stopped || this.latest <= this.sent) return;
    const progress = this.latest;
    this.sent = progress;
    this.lastSentAt = Date.now();
    this.options.send(progress).then(
      (cause) => {
        if (cause === undefined || this.stopped) return;
        this.stop();
        this.options.onStop(cause);
      },
      // Progress is best effort: the next change (or the heartbeat) carries it.
      (error: unknown) => this.options.logger.warn({ jobId: this.options.jobId, err: error }, 'progress report failed'),
    );
  }
}
