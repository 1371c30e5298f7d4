import { createHash } from 'node:crypto';
import type { JobCommand } from '../definitions/index.js';

/** JSON with object keys sorted at every depth, so equal commands serialise equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * SHA-256 of the canonicalised command (L1 idempotency): the normalised fields, not the raw
 * request, so whitespace around a prompt or the order of parameters does not make two equal
 * requests differ.
 */
export function requestHash(command: JobCommand): Buffer {
  return createHash('sha256').update(canonicalJson(command)).digest();
}
