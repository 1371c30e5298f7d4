import { timingSafeEqual } from 'node:crypto';
import { ApiError } from '../domain/api-error.js';

const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="provider-sim"' };

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Checks `Authorization: Bearer <key>`. With `apiKeys` configured the key must be one of them;
 * without, any non-empty key passes (local runs need no secrets). A missing or empty header is
 * always refused, so a client that forgets to send credentials is caught even locally.
 */
/** The bearer token of an Authorization header, if any. */
export function bearerToken(header: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1];
}

export function requireApiKey(header: string | undefined, apiKeys: readonly string[] | undefined): void {
  const key = bearerToken(header);
  if (!key) {
    throw new ApiError(401, 'unauthenticated', 'send the API key as "Authorization: Bearer <key>"', CHALLENGE);
  }
  if (apiKeys && !apiKeys.some((known) => sameSecret(known, key))) {
    throw new ApiError(
      401,
      'invalid_credentials',
      "the API key is not accepted: it must be one of provider-sim's PROVIDER_SIM_API_KEYS",
      CHALLENGE,
    );
  }
}
