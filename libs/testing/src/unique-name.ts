import { randomBytes } from 'node:crypto';

/**
 * A name unique to this run: `<prefix>_<unix seconds>_<pid>_<random>`. The timestamp lets a
 * later run recognise and remove leftovers of a crashed one.
 */
export function uniqueName(prefix: string): string {
  return `${prefix}_${Math.floor(Date.now() / 1000)}_${process.pid}_${randomBytes(3).toString('hex')}`;
}
