import { InvalidArgumentError } from '@atelier/errors';

const WORKER_ID_PATTERN = /^[\x21-\x7e]{1,200}$/;

/** Worker ids are printable ASCII without spaces, 1–200 characters (e.g. `pod/pid/random`). */
export function requireWorkerId(value: string): string {
  if (!WORKER_ID_PATTERN.test(value)) throw new InvalidArgumentError('worker_id', 'must be 1–200 printable characters without spaces');
  return value;
}
