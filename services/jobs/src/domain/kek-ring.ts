/** One key-encryption key: its id (stored with every row it wraps) and its 256 bits. */
export interface Kek {
  id: string;
  key: Buffer;
}

/** The key-encryption keys jobs knows: the current one wraps, every one unwraps. */
export interface KekRing {
  current: Kek;
  byId: ReadonlyMap<string, Kek>;
}

const KEK_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * CREDENTIALS_KEK_FILE's text (docs/credentials.md): JSON
 * `{"current": "<id>", "keys": {"<id>": "<base64 of 32 bytes>", …}}` — ids of 1–64 letters, digits,
 * `.`, `_` or `-`; the current id must be one of the keys. Old keys stay listed until a rewrap has
 * moved every row off them. Errors never repeat a key.
 */
export function parseKekRing(text: string): KekRing {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error('not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null) throw new Error('not a JSON object');
  const { current, keys } = parsed as { current?: unknown; keys?: unknown };
  if (typeof current !== 'string' || !KEK_ID.test(current)) throw new Error('"current" must be a key id');
  if (typeof keys !== 'object' || keys === null || Array.isArray(keys)) throw new Error('"keys" must be an object of id → base64 key');
  const byId = new Map<string, Kek>();
  for (const [id, encoded] of Object.entries(keys as Record<string, unknown>)) {
    if (!KEK_ID.test(id)) throw new Error('a key id must be 1–64 letters, digits, ".", "_" or "-"');
    const key = typeof encoded === 'string' ? Buffer.from(encoded, 'base64') : Buffer.alloc(0);
    if (key.length !== 32) throw new Error(`key ${id} must be the base64 of exactly 32 bytes`);
    byId.set(id, { id, key });
  }
  const currentKek = byId.get(current);
  if (!currentKek) throw new Error(`the current key ${current} is not among "keys"`);
  return { current: currentKek, byId };
}
