// What `npm start` runs besides its services — an embedded Postgres, a nats-server — as one shape:
// a process it stops within a bound on Ctrl-C, or kills at once on a second one.
import { type ChildProcess } from 'node:child_process';
import { hasExited, stopProcess } from './supervisor.js';

/** How long Postgres or nats-server has to stop before it is killed. */
export const STOP_TIMEOUT_MS = 10_000;

/** Why the local infrastructure could not start; `code` tells the cases apart. */
export class LocalInfrastructureError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'LocalInfrastructureError';
  }
}

export interface StartedProcess {
  readonly name: string;
  readonly pid: number;
  /** `signal`, then SIGKILL after STOP_TIMEOUT_MS; a process already gone is not waited on. */
  stop(): Promise<void>;
  /** SIGKILL, unless it is already gone. */
  kill(): void;
}

export function startedProcess(name: string, child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): StartedProcess {
  return {
    name,
    pid: child.pid!,
    stop: async () => void (await stopProcess(child, STOP_TIMEOUT_MS, { signal })),
    kill: () => void (hasExited(child) || child.kill('SIGKILL')),
  };
}

/** The last lines a process wrote: what an error shows when it does not start. */
export function outputTail(limit = 20) {
  const lines: string[] = [];
  return {
    add(chunk: Buffer | string) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      if (lines.length > limit) lines.splice(0, lines.length - limit);
    },
    text: () => lines.join('\n'),
  };
}
