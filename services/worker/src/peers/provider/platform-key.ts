import { createHash } from 'node:crypto';
import { watchSecretFile, type SecretFile } from '@atelier/config';
import type { Logger } from '@atelier/logging';

/** The platform's vendor key now, with its non-secret id. */
export interface PlatformKey {
  apiKey: string;
  /** 'platform:' + the first 12 hex digits of the key's SHA-256: names the key in the ledger and logs, reveals nothing of it. */
  id: string;
}

/** The credential id of a platform key (see PlatformKey.id). */
export function platformKeyId(apiKey: string): string {
  return `platform:${createHash('sha256').update(apiKey).digest('hex').slice(0, 12)}`;
}

function parseKey(text: string): string {
  const key = text.trim();
  if (!/^[\x21-\x7e]{1,512}$/.test(key)) throw new Error('must be 1–512 printable characters without spaces');
  return key;
}

/**
 * The platform's vendor key: PROVIDER_API_KEY_FILE (a mounted Secret) when set, read again when it
 * changes — a rotated key is used from the next call on, without a restart — else PROVIDER_API_KEY
 * (local runs). The key itself is never logged: only its id.
 */
export function platformKeySource(
  options: { file: string | undefined; fallback: string; pollIntervalMs?: number },
  logger: Logger,
): { current(): PlatformKey; close(): void } {
  if (!options.file) {
    const fixed = { apiKey: options.fallback, id: platformKeyId(options.fallback) };
    return { current: () => fixed, close: () => {} };
  }
  let current: PlatformKey | undefined;
  const secret: SecretFile<string> = watchSecretFile(options.file, {
    parse: parseKey,
    pollIntervalMs: options.pollIntervalMs ?? 5_000,
    onError: (error) => logger.error({ err: error }, 'PROVIDER_API_KEY_FILE changed but cannot be used: the key in use stays'),
    onChange: (apiKey) => {
      const previous = current?.id;
      current = { apiKey, id: platformKeyId(apiKey) };
      logger.info({ credentialId: current.id, previousCredentialId: previous }, 'platform vendor key read again (rotation)');
    },
  });
  current = { apiKey: secret.current(), id: platformKeyId(secret.current()) };
  return {
    current: () => {
      const apiKey = secret.current();
      if (current?.apiKey !== apiKey) current = { apiKey, id: platformKeyId(apiKey) };
      return current;
    },
    close: () => secret.close(),
  };
}
