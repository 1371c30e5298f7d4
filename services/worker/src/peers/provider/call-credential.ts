/** Whose vendor account a call used, as the usage ledger records it: never the key itself. */
export interface CallCredential {
  mode: 'platform_key' | 'user_key';
  /** A non-secret id: the platform key's fingerprint (platform-key.ts), or the user credential's id. */
  id: string;
}
