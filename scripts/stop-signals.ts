// How `npm start` reacts to Ctrl-C: the first SIGINT/SIGTERM/SIGHUP stops everything in order and
// exits 0; a second one forces what is left (SIGKILL) and exits 1. A launcher that is gone without
// a word (scripts/launch.mjs: its IPC channel closes when it dies, SIGKILL included) is a first stop
// signal too, so the platform never outlives the process that started it.
import { type EventEmitter } from 'node:events';

export interface StopSignalOptions {
  /** The orderly stop; the process exits 0 when it resolves (1 if it rejects). */
  stop(): Promise<void>;
  /** What a second signal does before the process exits 1: SIGKILL whatever is left. */
  force(): void;
  log(line: string): void;
  /**
   * One Ctrl-C reaches the platform more than once — from the terminal and relayed by npm and by
   * npm start's launcher (scripts/launch.mjs) — within milliseconds; only a signal this long after the first forces.
   */
  repeatAfterMs?: number;
  processLike?: Pick<EventEmitter, 'on'> & { connected?: boolean };
  exit?: (code: number) => void;
}

export function onStopSignals(options: StopSignalOptions): void {
  const emitter = options.processLike ?? (process as unknown as EventEmitter & { connected?: boolean });
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let firstAt: number | undefined;
  const stopOnce = (why: string) => {
    firstAt = Date.now();
    options.log(`${why}: stopping everything, last started first (Ctrl-C again to force)…`);
    options.stop().then(
      () => exit(0),
      (error: unknown) => {
        options.log(`stop failed: ${(error as Error).message}`);
        exit(1);
      },
    );
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    emitter.on(signal, () => {
      if (firstAt === undefined) return stopOnce(signal);
      if (Date.now() - firstAt < (options.repeatAfterMs ?? 1_000)) return;
      options.log(`${signal} again: killing what is left (SIGKILL)`);
      options.force();
      exit(1);
    });
  }
  // Only a process started with an IPC channel has a launcher to watch; 'disconnect' is its end.
  if (emitter.connected) {
    emitter.on('disconnect', () => {
      if (firstAt === undefined) stopOnce('the launcher is gone (its IPC channel closed)');
    });
  }
}
