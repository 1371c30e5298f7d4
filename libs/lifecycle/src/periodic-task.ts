interface LoggerLike {
  warn(obj: object, msg: string): void;
}

export interface PeriodicTaskOptions {
  /** What the task does, as its log lines say it ("lease reaping" → "lease reaping failed; …"). */
  name: string;
  /** The pause between the end of one run and the start of the next (the first run comes one pause after the start). */
  intervalMs: number;
  /**
   * One run. `signal` aborts when the task is stopped: a run that works through a backlog in
   * steps ends between two of them; a short run may ignore it (stop waits for it anyway).
   */
  run: (signal: AbortSignal) => Promise<unknown>;
  /** Told of a failed run; the task carries on at the next interval. */
  logger: LoggerLike;
}

export interface PeriodicTask {
  /** No run starts after this; resolves once the run in flight, if any, has ended. */
  stop(): Promise<void>;
}

/**
 * Runs `run` every intervalMs until stopped, for housekeeping that must not hold the process
 * up: runs never overlap (the next is scheduled when the last has ended, however long it took),
 * a failed run is logged and the next comes as usual, and the timer is unref'd so that a task
 * alone never keeps the process alive.
 */
export function startPeriodicTask(options: PeriodicTaskOptions): PeriodicTask {
  const stopping = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const schedule = () => {
    timer = setTimeout(tick, options.intervalMs);
    timer.unref();
  };
  function tick() {
    running = (async () => {
      try {
        await options.run(stopping.signal);
      } catch (error) {
        options.logger.warn({ err: error, task: options.name }, `${options.name} failed; it runs again at the next interval`);
      }
      if (!stopping.signal.aborted) schedule();
    })();
  }

  schedule();
  return {
    async stop() {
      stopping.abort();
      clearTimeout(timer);
      await running;
    },
  };
}
