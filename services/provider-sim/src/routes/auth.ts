import { createHash, timingSafeEqual } from 'node:crypto';
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

export function requireApiKey(header: string | undefined, apiKeys: readonly string[] | undefined): string {
  const key = bearerToken(header);
  if (!key) {
    throw new ApiError(401, 'unauthenticated', 'send the API key as "Authorization: Bearer <key>"', CHALLENGE);
  }
  if (apiKeys && !apiKeys.some((known) => sameSecret(known, key))) {
    throw new ApiError(
      401,
      'invalid_credentials',
      "the API key is not accepted: it must be one of provider-sim's PROVIDER_SIM_API_KEYS (or PROVIDER_SIM_API_KEYS_FILE)",
      CHALLENGE,
    );
  }
  return key;
}

/**
 * The vendor account a key belongs to, named by a fingerprint (never the key itself). A key
 * written `<account>.<secret>` belongs to `<account>`, so the two keys of a rotation
 * (`platform.old`, `platform.new`) are one account, as at a real vendor; any other key is an
 * account of its own. A prediction belongs to the account that created it, and
 * `GET /v1/predictions` lists only the caller's account.
 */
export function accountOf(key: string): string {
  const dot = key.indexOf('.');
  const account = dot > 0 ? key.slice(0, dot) : key;
  return `acct_${createHash('sha256').update(account).digest('hex').slice(0, 16)}`;
}
