// The local platform's process supervisor (`npm start`): starts each service and waits until it is
// ready, restarts one that dies afterwards with jittered exponential backoff, gives up on one that
// keeps dying at once, and stops everything it started — last started first, each within a bound.
import { type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { backoffDelayMs, type BackoffOptions } from '@atelier/lifecycle';

/**
 * starting: launched, not ready yet · up: ready · restarting: exited after start-up, a new process
 * is due or not ready yet · failed: given up on (or never became ready) · stopped: stopped on request.
 */
export type ServiceState = 'starting' | 'up' | 'restarting' | 'failed' | 'stopped';

export interface SupervisedService {
  readonly name: string;
  /** Starts a fresh process of the service: the first time and after each exit. */
  spawn(): ChildProcess;
  /** Whether that process takes traffic (asked until it does). */
  isReady(child: ChildProcess): Promise<boolean>;
}

export interface SupervisorOptions {
  /** The wait before restart n of a run of rapid failures: backoffDelayMs(n, backoff). */
  backoff: BackoffOptions;
  /** A process that stayed up this long was healthy: its exit starts the backoff afresh. */
  stableAfterMs: number;
  /** This many exits in a row, each sooner than stableAfterMs after its start, and the service is given up on. */
  maxRapidFailures: number;
  /** How long a first start may take to become ready. */
  readyTimeoutMs: number;
  readyPollMs?: number;
  /** How long a process has between SIGTERM and SIGKILL when the platform stops. */
  stopTimeoutMs: number;
  /** Where the supervisor's own lines go; `alarm` marks the ones a developer must not miss. */
  log(line: string, level: 'info' | 'alarm'): void;
}

export interface ServiceStatus {
  name: string;
  state: ServiceState;
  pid?: number;
  /** Restarts since `npm start` began. */
  restarts: number;
  /** How its last process ended ("exit code 1", "signal SIGKILL"), when one has. */
  lastExit?: string;
}

interface Supervised {
  readonly name: string;
  readonly service?: SupervisedService;
  child: ChildProcess;
  /** Resolves when `child` has exited: made at spawn, so it never waits on an exit already past. */
  exited: Promise<void>;
  startedAt: number;
  state: ServiceState;
  restarts: number;
  rapidFailures: number;
  lastExit?: string;
  restartTimer?: NodeJS.Timeout;
}

/** Whether the process is gone (exited, or killed by a signal). */
export function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Resolves once the process has exited, at once when it already has; a process that never spawned counts as exited. */
export function exitOf(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (hasExited(child)) return resolve();
    child.once('exit', () => resolve());
    child.once('error', () => {
      if (child.pid === undefined) resolve();
    });
  });
}

/**
 * Stops one process: `signal` (SIGTERM unless told), then SIGKILL when it is still there after
 * `timeoutMs`. Returns whether it had to be forced. A process already gone is not waited on.
 */
export async function stopProcess(
  child: ChildProcess,
  timeoutMs: number,
  options: { signal?: NodeJS.Signals; exited?: Promise<void> } = {},
): Promise<boolean> {
  if (hasExited(child) || child.pid === undefined) return false;
  const exited = options.exited ?? exitOf(child);
  child.kill(options.signal ?? 'SIGTERM');
  const stopped = await Promise.race([exited.then(() => true), sleep(timeoutMs, false)]);
  if (stopped || hasExited(child)) return false;
  child.kill('SIGKILL');
  // SIGKILL cannot be caught; the bound only guards against a process stuck in the kernel.
  await Promise.race([exited, sleep(2_000)]);
  return true;
}

function describeExit(child: ChildProcess): string {
  if (child.signalCode) return `signal ${child.signalCode}`;
  if (child.exitCode !== null) return `exit code ${child.exitCode}`;
  return 'failed to start';
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}

export class Supervisor {
  private readonly started: Supervised[] = [];
  private stopping: Promise<void> | undefined;

  constructor(private readonly options: SupervisorOptions) {}

  /**
   * Starts the service and resolves once it is ready. Rejects when it exits or stays unready
   * before that: a service that cannot start is a bug to fix, not a crash to ride out, so it is
   * not restarted. From then on an exit is reported and restarted.
   */
  async start(service: SupervisedService): Promise<void> {
    this.assertRunning();
    const entry = this.launch(service.name, service.spawn(), service);
    const deadline = Date.now() + this.options.readyTimeoutMs;
    while (!(await this.readyOrGone(entry))) {
      if (Date.now() >= deadline) {
        entry.state = 'failed';
        void stopProcess(entry.child, this.options.stopTimeoutMs, { exited: entry.exited });
        throw new Error(`${service.name} was not ready within ${seconds(this.options.readyTimeoutMs)}`);
      }
      await sleep(this.options.readyPollMs ?? 300);
    }
    if (entry.state !== 'up') {
      entry.state = this.stopping ? 'stopped' : 'failed';
      throw new Error(`${service.name} exited during start-up (${describeExit(entry.child)})`);
    }
  }

  /** Runs a one-off process (a migration) to completion; stop() ends it too. */
  async run(name: string, child: ChildProcess): Promise<string | undefined> {
    this.assertRunning();
    const entry = this.launch(name, child);
    await entry.exited;
    return child.exitCode === 0 ? undefined : describeExit(child);
  }

  /** Each supervised service's state, in start order. */
  status(): ServiceStatus[] {
    return this.started
      .filter((entry) => entry.service)
      .map((entry) => ({
        name: entry.name,
        state: entry.state,
        ...(hasExited(entry.child) || entry.child.pid === undefined ? {} : { pid: entry.child.pid }),
        restarts: entry.restarts,
        ...(entry.lastExit ? { lastExit: entry.lastExit } : {}),
      }));
  }

  /**
   * Stops every process it started, last started first (the gateway before the services it
   * calls): SIGTERM, then SIGKILL after stopTimeoutMs. No restart happens from here on. Calling
   * it again returns the same stop.
   */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      for (const entry of this.started) clearTimeout(entry.restartTimer);
      for (const entry of [...this.started].reverse()) {
        if (await stopProcess(entry.child, this.options.stopTimeoutMs, { exited: entry.exited })) {
          this.options.log(
            `${entry.name} did not stop within ${seconds(this.options.stopTimeoutMs)} of SIGTERM: killed (SIGKILL)`,
            'alarm',
          );
        }
        if (entry.service) entry.state = 'stopped';
      }
    })();
    return this.stopping;
  }

  /** SIGKILL to every process still running (a second Ctrl-C): nothing waits any more. */
  kill(): void {
    this.stopping ??= Promise.resolve();
    for (const entry of this.started) {
      clearTimeout(entry.restartTimer);
      if (!hasExited(entry.child)) entry.child.kill('SIGKILL');
      if (entry.service) entry.state = 'stopped';
    }
  }

  private assertRunning(): void {
    if (this.stopping) throw new Error('the platform is stopping');
  }

  private launch(name: string, child: ChildProcess, service?: SupervisedService): Supervised {
    const entry: Supervised = {
      name,
      service,
      child,
      exited: exitOf(child),
      startedAt: Date.now(),
      state: 'starting',
      restarts: 0,
      rapidFailures: 0,
    };
    this.started.push(entry);
    if (service) this.watch(entry);
    return entry;
  }

  /** True once the current process is ready (state up) or gone. */
  private async readyOrGone(entry: Supervised): Promise<boolean> {
    const child = entry.child;
    if (hasExited(child) || child.pid === undefined) return true;
    const ready = await entry.service!.isReady(child).catch(() => false);
    if (ready && entry.child === child && !hasExited(child) && !this.stopping) entry.state = 'up';
    return ready || hasExited(child);
  }

  private watch(entry: Supervised): void {
    const child = entry.child;
    void entry.exited.then(() => {
      if (this.stopping || entry.state === 'starting' || entry.state === 'failed') {
        // A first start's exit is start()'s to report; a stop's exit is expected.
        entry.lastExit = describeExit(child);
        return;
      }
      this.onCrash(entry, child);
    });
  }

  private onCrash(entry: Supervised, child: ChildProcess): void {
    const ranMs = Date.now() - entry.startedAt;
    entry.lastExit = describeExit(child);
    entry.rapidFailures = ranMs >= this.options.stableAfterMs ? 1 : entry.rapidFailures + 1;
    if (entry.rapidFailures > this.options.maxRapidFailures) {
      entry.state = 'failed';
      this.options.log(
        `${entry.name} exited (${entry.lastExit}) after ${seconds(ranMs)}: ${entry.rapidFailures} exits in a row, each within ` +
          `${seconds(this.options.stableAfterMs)} of starting — giving up on it, the rest keep running. Read its log above, fix it, and restart npm start.`,
        'alarm',
      );
      return;
    }
    entry.state = 'restarting';
    const delayMs = backoffDelayMs(entry.rapidFailures, this.options.backoff);
    this.options.log(
      `${entry.name} exited (${entry.lastExit}) after ${seconds(ranMs)}: restarting it in ${seconds(delayMs)} ` +
        `(failure ${entry.rapidFailures} of at most ${this.options.maxRapidFailures} in a row)`,
      'alarm',
    );
    entry.restartTimer = setTimeout(() => this.restart(entry), delayMs);
  }

  private restart(entry: Supervised): void {
    if (this.stopping) return;
    const child = entry.service!.spawn();
    entry.child = child;
    entry.exited = exitOf(child);
    entry.startedAt = Date.now();
    entry.restarts += 1;
    this.watch(entry);
    void (async () => {
      // A restarted process stays `restarting` until ready; there is no deadline, /readyz shows it.
      while (!this.stopping && entry.child === child && !(await this.readyOrGone(entry))) {
        await sleep(this.options.readyPollMs ?? 300);
      }
      if (entry.state === 'up') this.options.log(`${entry.name} is up again (pid ${child.pid}, restart ${entry.restarts})`, 'info');
    })();
  }
}
