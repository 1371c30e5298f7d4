// Small real services for the supervisor's tests: `node -e` processes that print "ready" once
// they would take traffic, then serve, crash or ignore SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { type SupervisedService } from '../../scripts/supervisor.js';

const BEHAVIOURS = {
  serve: `console.log('ready'); setInterval(() => {}, 1000);`,
  'ignore-sigterm': `process.on('SIGTERM', () => {}); console.log('ready'); setInterval(() => {}, 1000);`,
  'exit-after-ready': `console.log('ready'); setTimeout(() => process.exit(3), 100);`,
  'exit-after-400ms': `console.log('ready'); setTimeout(() => process.exit(3), 400);`,
  'exit-before-ready': `process.exit(3);`,
} as const;

export type Behaviour = keyof typeof BEHAVIOURS;

export function nodeService(name: string, behaviour: Behaviour): SupervisedService {
  const ready = new WeakSet<ChildProcess>();
  return {
    name,
    spawn() {
      const child = spawn(process.execPath, ['-e', BEHAVIOURS[behaviour]], { stdio: ['ignore', 'pipe', 'inherit'] });
      child.stdout!.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('ready')) ready.add(child);
      });
      return child;
    },
    isReady: async (child) => ready.has(child),
  };
}

/**
 * Whether a process of that pid still runs. A zombie does not: killed, its parent gone before
 * reaping it, it waits for a PID 1 that may never reap (in a container).
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
