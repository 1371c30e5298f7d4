import { type EventEmitter } from 'node:events';

interface LoggerLike {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface ShutdownOptions {
  logger: LoggerLike;
  /** How long the drain may take before the process is forced down. */
  graceMs: number;
  signals?: readonly NodeJS.Signals[];
  /** For tests: where signals come from and how the process ends. */
  processLike?: Pick<NodeJS.EventEmitter, 'on' | 'off'>;
  exit?: (code: number) => void;
}

export interface ShutdownHandle {
  /** Starts the drain as if a signal arrived (e.g. after a fatal error). */
  shutdown(reason: string): Promise<void>;
  /** Removes the signal listeners (tests). */
  dispose(): void;
}

/**
 * Drain, then stop. The first SIGTERM/SIGINT runs `drain` (stop intake, finish or hand back
 * in-flight work, close connections) and exits 0 when it resolves. A second signal, a failed
 * drain, or a drain longer than graceMs exits 1 at once: Kubernetes' own grace period must be
 * longer than graceMs so that the drain, not SIGKILL, decides.
 */
export function installShutdownHandlers(drain: () => Promise<void>, options: ShutdownOptions): ShutdownHandle {
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  const emitter = options.processLike ?? (process as unknown as EventEmitter);
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let draining: Promise<void> | undefined;

  const shutdown = (reason: string): Promise<void> => {
    if (draining) {
      options.logger.error({ reason }, 'second shutdown request: exiting now');
      exit(1);
      return draining;
    }
    options.logger.info({ reason, graceMs: options.graceMs }, 'shutting down: draining');
    const timer = setTimeout(() => {
      options.logger.error({ graceMs: options.graceMs }, 'drain exceeded the grace period: exiting now');
      exit(1);
    }, options.graceMs);
    timer.unref();
    draining = drain().then(
      () => {
        clearTimeout(timer);
        options.logger.info({}, 'drained: exiting');
        exit(0);
      },
      (error: unknown) => {
        clearTimeout(timer);
        options.logger.error({ err: error }, 'drain failed: exiting');
        exit(1);
      },
    );
    return draining;
  };

  const listeners = signals.map((signal) => {
    const listener = () => void shutdown(signal);
    emitter.on(signal, listener);
    return [signal, listener] as const;
  });

  return {
    shutdown,
    dispose: () => listeners.forEach(([signal, listener]) => emitter.off(signal, listener)),
  };
}
