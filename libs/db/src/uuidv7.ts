import { randomFillSync } from 'node:crypto';

const RANDOM_POOL_SIZE = 16 * 256;
const pool = Buffer.alloc(RANDOM_POOL_SIZE);
let poolOffset = RANDOM_POOL_SIZE;

function randomBytes16(): Buffer {
  if (poolOffset + 16 > RANDOM_POOL_SIZE) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const bytes = Buffer.from(pool.subarray(poolOffset, poolOffset + 16));
  poolOffset += 16;
  return bytes;
}

/**
 * A UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then random bits. Ids sort by
 * creation time, which keeps B-tree inserts local and makes `ORDER BY id` roughly chronological.
 */
export function uuidv7(now: number = Date.now()): string {
  const bytes = randomBytes16();
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

let lastMs = 0;
let sequence = 0;

/**
 * A UUIDv7 that sorts after every earlier one this process made (RFC 9562 §6.2, method 1): within
 * one millisecond the 12 bits after the version count up instead of being random, and a count that
 * runs out borrows the next millisecond. For logs whose readers page by id and need this process's
 * entries in the order they were written (the operators' audit); ids of other processes made in
 * the same millisecond may sort either side.
 */
export function monotonicUuidv7(now: number = Date.now()): string {
  if (now > lastMs) {
    lastMs = now;
    sequence = 0;
  } else if (++sequence > 0xfff) {
    lastMs += 1;
    sequence = 0;
  }
  const bytes = randomBytes16();
  bytes.writeUIntBE(lastMs, 0, 6);
  bytes[6] = 0x70 | (sequence >> 8);
  bytes[7] = sequence & 0xff;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
