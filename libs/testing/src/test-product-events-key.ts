import { randomBytes } from 'node:crypto';

let key: string | undefined;

/**
 * This test process's PRODUCT_EVENTS_USER_KEY: made at run time (never committed), the same for
 * every service the process starts, so that a test can compute the user_ref it expects.
 */
export function testProductEventsKey(): string {
  key ??= randomBytes(32).toString('base64url');
  return key;
}
