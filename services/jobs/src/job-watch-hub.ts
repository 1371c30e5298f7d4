import { EventEmitter } from 'node:events';

/**
 * In-process notice that a job changed, so WatchJob streams on this replica answer at once. A
 * change made by another replica is found by the watcher's own polling instead.
 */
export class JobWatchHub {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  changed(jobId: string): void {
    this.emitter.emit(jobId);
  }

  /** Resolves on the next change of the job or after timeoutMs, whichever comes first. */
  next(jobId: string, timeoutMs: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.emitter.off(jobId, done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.emitter.once(jobId, done);
      signal.addEventListener('abort', done, { once: true });
    });
  }
}
