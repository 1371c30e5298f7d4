/**
 * Crash injection for the crash-safety tests: with WORKER_CRASH_POINT set, the worker kills
 * itself with SIGKILL — exactly what `kill -9` does — the first time a job reaches that point.
 * Unset (always, in production) every call is a no-op.
 */
export const CRASH_POINTS = ['after-provider-submit', 'after-provider-record', 'while-polling', 'after-output-stored'] as const;
export type CrashPoint = (typeof CRASH_POINTS)[number];

export function crashPointsFor(configured: CrashPoint | undefined): (point: CrashPoint) => void {
  if (!configured) return () => {};
  return (point) => {
    if (point !== configured) return;
    process.stderr.write(`worker: crash point ${point} reached: SIGKILL\n`);
    process.kill(process.pid, 'SIGKILL');
  };
}
