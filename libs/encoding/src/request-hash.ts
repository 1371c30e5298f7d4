import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';

/**
 * SHA-256 (32 bytes) of a command's canonical JSON: what an idempotency key is stored with (L1),
 * so that a replay of the key with the same command is recognised and one with another command
 * refused. Hash the normalised command, not the raw request, so that whitespace around a field
 * or the order of keys does not make two equal requests differ.
 */
export function requestHash(command: unknown): Buffer {
  return createHash('sha256').update(canonicalJson(command)).digest();
}
