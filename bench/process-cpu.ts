// CPU time of processes from /proc (Linux): what a benchmark phase cost each part of the system,
// so figures can be stated per job rather than only per second of wall time.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

interface ProcStat {
  pid: number;
  comm: string;
  ppid: number;
  /** utime + stime of the process itself, in ms. */
  ownMs: number;
  /** cutime + cstime: its children that have exited and been waited for, in ms. */
  reapedChildrenMs: number;
}

function readStat(pid: number | 'self'): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // gone
  }
  // The command sits in parentheses and may itself hold spaces or parentheses.
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  const fields = text.slice(close + 2).split(' ');
  const tick = (index: number) => (Number(fields[index - 3]) * 1000) / TICKS_PER_SECOND;
  return {
    pid: Number(text.slice(0, open).trim()),
    comm: text.slice(open + 1, close),
    ppid: Number(fields[1]),
    ownMs: tick(14) + tick(15),
    reapedChildrenMs: tick(16) + tick(17),
  };
}

function allStats(): ProcStat[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readStat(Number(name)))
    .filter((stat): stat is ProcStat => stat !== undefined);
}

/**
 * CPU ms of a process family that outlives its short-lived members: the oldest process named
 * `comm` (Postgres's postmaster, nats-server) with everything it reaped so far, plus the members
 * alive now. Postgres backends that exit between two readings are still counted, through the
 * postmaster's cutime.
 */
export function familyCpuMs(comm: string): number {
  const stats = allStats().filter((stat) => stat.comm === comm || stat.comm.startsWith(`${comm}:`));
  if (stats.length === 0) return 0;
  const pids = new Set(stats.map((stat) => stat.pid));
  const roots = stats.filter((stat) => !pids.has(stat.ppid));
  return stats.reduce((sum, stat) => sum + stat.ownMs, 0) + roots.reduce((sum, stat) => sum + stat.reapedChildrenMs, 0);
}

/**
 * CPU ms used so far by the Postgres backends serving one database (their process title names
 * it): a benchmark's own share of a server others load too, both sides of a comparison alike.
 * Backends come and go (graphile-worker's CLI opens and closes its pool), so they are sampled
 * every 200 ms and an ended one keeps its last reading (its last fraction of a second is lost); the server's own processes (WAL writer,
 * checkpointer) are in neither side's figure.
 */
export function databaseBackendsCpu(databaseName: string): { read(): number; stop(): void } {
  const lastSeen = new Map<number, number>();
  const sample = () => {
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      let title: string;
      try {
        title = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      } catch {
        continue;
      }
      if (!title.startsWith('postgres: ') || !title.includes(` ${databaseName} `)) continue;
      const cpu = readStat(Number(name))?.ownMs;
      if (cpu !== undefined) lastSeen.set(Number(name), cpu);
    }
  };
  sample();
  const timer = setInterval(sample, 200);
  timer.unref();
  return {
    read() {
      sample();
      let total = 0;
      for (const cpu of lastSeen.values()) total += cpu;
      return total;
    },
    stop: () => clearInterval(timer),
  };
}

/** CPU ms one live process has used so far (0 once it is gone). */
export function processCpuMs(pid: number | undefined): number {
  return pid === undefined ? 0 : (readStat(pid)?.ownMs ?? 0);
}

/**
 * CPU ms one live process has used so far with its children that have exited and been waited for
 * (redis-server's rewrites of its append-only file run in a forked child).
 */
export function processWithReapedChildrenCpuMs(pid: number | undefined): number {
  const stat = pid === undefined ? undefined : readStat(pid);
  return stat ? stat.ownMs + stat.reapedChildrenMs : 0;
}

/** CPU ms of this process's children that have exited and been waited for. */
export function reapedChildrenCpuMs(): number {
  return readStat('self')?.reapedChildrenMs ?? 0;
}

/** Readings of named CPU counters at two moments; the difference is what happened between. */
export class CpuMeter {
  private readonly start: Record<string, number>;

  constructor(private readonly counters: Record<string, () => number>) {
    this.start = this.read();
  }

  private read(): Record<string, number> {
    return Object.fromEntries(Object.entries(this.counters).map(([name, counter]) => [name, counter()]));
  }

  /** CPU ms each counter spent since the meter was made. */
  spent(): Record<string, number> {
    const now = this.read();
    return Object.fromEntries(Object.keys(this.counters).map((name) => [name, Math.max(0, now[name]! - this.start[name]!)]));
  }
}
