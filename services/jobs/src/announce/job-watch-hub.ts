import { EventEmitter } from 'node:events';

/**
 * Notice that a job changed, so WatchJob streams answer at once: a change made on this replica
 * wakes its streams directly and is passed on (`publish`, JobChangeNotices: LISTEN/NOTIFY) to
 * the other replicas, whose notices arrive through remoteChanged. Streams otherwise sleep until
 * their slow safety re-read (WATCH_REREAD_MS), for a notice that was lost.
 */
export class JobWatchHub {
  private readonly emitter = new EventEmitter();
  private publish: (jobId: string) => void = () => {};
  /** How many times a stream was woken to re-read its job (a change, or its safety timer). */
  wakeups = 0;

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  /** Where changes made here are passed on to the other replicas. */
  publishTo(publish: (jobId: string) => void): void {
    this.publish = publish;
  }

  changed(jobId: string): void {
    this.emitter.emit(jobId);
    this.publish(jobId);
  }

  /** A change another replica made: only this replica's streams are woken. */
  remoteChanged(jobId: string): void {
    this.emitter.emit(jobId);
  }

  /** Resolves on the next change of the job or after timeoutMs, whichever comes first. */
  next(jobId: string, timeoutMs: number, signal: AbortSignal): Promise<void> {
    // A stream cancelled before it got here would otherwise sleep out the whole re-read delay.
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.emitter.off(jobId, done);
        signal.removeEventListener('abort', done);
        if (!signal.aborted) this.wakeups += 1;
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.emitter.once(jobId, done);
      signal.addEventListener('abort', done, { once: true });
    });
  }
}
