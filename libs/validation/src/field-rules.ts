import { InvalidArgumentError } from '@atelier/errors';
import { MAX_IDEMPOTENCY_KEY_LENGTH, MAX_USER_ID_LENGTH } from './limits.js';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** User ids are the identity provider's `sub` (an operator's id likewise): 1–MAX_USER_ID_LENGTH printable characters, no spaces. */
export const USER_ID_PATTERN = new RegExp(`^[A-Za-z0-9][A-Za-z0-9._:@|-]{0,${MAX_USER_ID_LENGTH - 1}}$`);

export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}

/** A UUID in canonical lower case. */
export function requireUuid(value: string | undefined, field: string): string {
  if (value === undefined || value === '') throw new InvalidArgumentError(field, 'is required');
  if (!isUuid(value)) throw new InvalidArgumentError(field, 'must be a UUID');
  return value.toLowerCase();
}

export function requireUserId(value: string | undefined, field: string): string {
  if (value === undefined || value === '') throw new InvalidArgumentError(field, 'is required');
  if (!USER_ID_PATTERN.test(value))
    throw new InvalidArgumentError(field, `must be 1–${MAX_USER_ID_LENGTH} characters: letters, digits, . _ : @ | -`);
  return value;
}

/**
 * Text Postgres can store: no U+0000, which a text column refuses (SQLSTATE 22021, a 500 if it
 * got that far). Every free-text field passes here before any SQL.
 */
export function requireNoNul(value: string, field: string): string {
  if (value.includes('\u0000')) throw new InvalidArgumentError(field, 'must not contain the NUL character (U+0000)');
  return value;
}

/** An idempotency key: 1–MAX_IDEMPOTENCY_KEY_LENGTH characters after trimming (SPEC §4.3). */
export function requireIdempotencyKey(value: string | undefined, field = 'idempotency_key'): string {
  const trimmed = requireNoNul((value ?? '').trim(), field);
  if (trimmed === '') throw new InvalidArgumentError(field, 'is required');
  if (trimmed.length > MAX_IDEMPOTENCY_KEY_LENGTH)
    throw new InvalidArgumentError(field, `must be at most ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`);
  return trimmed;
}

/** Trimmed text of at most maxLength characters, without NUL; empty only when allowed. */
export function requireText(value: string | undefined, field: string, maxLength: number, options: { allowEmpty?: boolean } = {}): string {
  const trimmed = requireNoNul((value ?? '').trim(), field);
  if (!options.allowEmpty && trimmed === '') throw new InvalidArgumentError(field, 'must not be empty');
  if (trimmed.length > maxLength) throw new InvalidArgumentError(field, `must be at most ${maxLength} characters`);
  return trimmed;
}

export function requireIntInRange(value: number, field: string, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new InvalidArgumentError(field, `must be an integer between ${min} and ${max}`);
  }
  return value;
}
