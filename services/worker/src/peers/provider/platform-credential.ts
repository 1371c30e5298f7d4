import { createHash } from 'node:crypto';

/** Whose vendor account a call used, as the usage ledger records it: never the key itself. */
export interface CallCredential {
  mode: 'platform_key' | 'user_key';
  /** A non-secret id: for the platform key, a fingerprint of it. */
  id: string;
}

/**
 * The platform's own key, named by the first 12 hex digits of its SHA-256 ("platform:" + …): two
 * keys of a rotation tell apart in the ledger, and the fingerprint reveals nothing usable. Until
 * user keys arrive, every call is made with it.
 */
export function platformCredential(apiKey: string): CallCredential {
  return { mode: 'platform_key', id: `platform:${createHash('sha256').update(apiKey).digest('hex').slice(0, 12)}` };
}
