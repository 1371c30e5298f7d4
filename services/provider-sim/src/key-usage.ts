import { createHash } from 'node:crypto';

/**
 * Authenticated requests counted by the API key that made them, each key named by its fingerprint
 * (the first 12 hex digits of its SHA-256, as the worker names the platform key): a test sees which
 * key a job ran with, and that an old key stopped being used, without the simulator keeping keys.
 */
export class KeyUsage {
  private readonly counts = new Map<string, number>();

  count(key: string): void {
    const fingerprint = keyFingerprint(key);
    this.counts.set(fingerprint, (this.counts.get(fingerprint) ?? 0) + 1);
  }

  byFingerprint(): Record<string, number> {
    return Object.fromEntries(this.counts);
  }
}

export function keyFingerprint(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 12);
}
