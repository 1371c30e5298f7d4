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
  /**
   * For a task that knows when its next work falls due (the earliest lease to expire): asked at
   * the start and after each run that went well, it answers the pause before the next run, kept
   * within 0..intervalMs — so the task wakes when the work is due, and at least every intervalMs.
   * Without it, or when it fails (logged), the pause is intervalMs.
   */
  nextRunInMs?: () => Promise<number>;
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

  const schedule = (delayMs: number) => {
    timer = setTimeout(tick, delayMs);
    timer.unref();
  };
  /** The pause after a run that went well: the task's own, within 0..intervalMs. */
  const nextDelay = async (): Promise<number> => {
    if (!options.nextRunInMs) return options.intervalMs;
    try {
      return Math.min(options.intervalMs, Math.max(0, await options.nextRunInMs()));
    } catch (error) {
      options.logger.warn(
        { err: error, task: options.name },
        `${options.name}: its next run could not be timed; it runs at the next interval`,
      );
      return options.intervalMs;
    }
  };
  function tick() {
    running = (async () => {
      let delayMs = options.intervalMs;
      try {
        await options.run(stopping.signal);
        if (!stopping.signal.aborted) delayMs = await nextDelay();
      } catch (error) {
        options.logger.warn({ err: error, task: options.name }, `${options.name} failed; it runs again at the next interval`);
      }
      if (!stopping.signal.aborted) schedule(delayMs);
    })();
  }

  // The first run comes one interval after the start — or when the task says work falls due.
  if (options.nextRunInMs)
    running = nextDelay().then((delayMs) => {
      if (!stopping.signal.aborted) schedule(delayMs);
    });
  else schedule(options.intervalMs);
  return {
    async stop() {
      stopping.abort();
      clearTimeout(timer);
      await running;
    },
  };
}
