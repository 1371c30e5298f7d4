import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Kek, KekRing } from './kek-ring.js';

/**
 * A user's vendor key as stored (jobs.provider_credentials): encrypted with AES-256-GCM under a
 * random 256-bit data key of its own, and that data key wrapped (AES-256-GCM again) under a
 * key-encryption key named by `kekId`. Neither the key nor the data key is ever stored in clear.
 */
export interface SealedSecret {
  kekId: string;
  wrappedKey: Buffer;
  wrapNonce: Buffer;
  wrapTag: Buffer;
  ciphertext: Buffer;
  nonce: Buffer;
  tag: Buffer;
}

/**
 * What a sealed secret is bound to: a row's ciphertext moved to another row (another credential,
 * another user) does not open there, nor a data key under another KEK id.
 */
export interface SealContext {
  credentialId: string;
  userId: string;
  providerCode: string;
}

/** A sealed secret that does not open: tampered with, bound to another row, or its KEK unknown. */
export class EnvelopeError extends Error {
  override name = 'EnvelopeError';
}

const ALGORITHM = 'aes-256-gcm';

function encrypt(key: Buffer, plaintext: Buffer, aad: Buffer): { ciphertext: Buffer; nonce: Buffer; tag: Buffer } {
  const nonce = randomBytes(12);
  const cipher = createCipheriv(ALGORITHM, key, nonce);
  cipher.setAAD(aad);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { ciphertext, nonce, tag: cipher.getAuthTag() };
}

function decrypt(key: Buffer, sealed: { ciphertext: Buffer; nonce: Buffer; tag: Buffer }, aad: Buffer): Buffer {
  try {
    const decipher = createDecipheriv(ALGORITHM, key, sealed.nonce, { authTagLength: 16 });
    decipher.setAAD(aad);
    decipher.setAuthTag(sealed.tag);
    return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]);
  } catch {
    throw new EnvelopeError('the sealed secret does not open (tampered with, or bound to another row or key)');
  }
}

const dataAad = (context: SealContext) =>
  Buffer.from(`atelier.credential.v1|${context.credentialId}|${context.userId}|${context.providerCode}`);
const wrapAad = (kekId: string, context: SealContext) => Buffer.from(`atelier.kek.v1|${kekId}|${context.credentialId}`);

function wrap(kek: Kek, dataKey: Buffer, context: SealContext): Pick<SealedSecret, 'kekId' | 'wrappedKey' | 'wrapNonce' | 'wrapTag'> {
  const wrapped = encrypt(kek.key, dataKey, wrapAad(kek.id, context));
  return { kekId: kek.id, wrappedKey: wrapped.ciphertext, wrapNonce: wrapped.nonce, wrapTag: wrapped.tag };
}

function unwrap(ring: KekRing, sealed: SealedSecret, context: SealContext): Buffer {
  const kek = ring.byId.get(sealed.kekId);
  if (!kek) throw new EnvelopeError(`key-encryption key ${sealed.kekId} is not in CREDENTIALS_KEK_FILE`);
  return decrypt(kek.key, { ciphertext: sealed.wrappedKey, nonce: sealed.wrapNonce, tag: sealed.wrapTag }, wrapAad(kek.id, context));
}

/** Seals a secret under a fresh data key, wrapped under the ring's current KEK. */
export function seal(ring: KekRing, secret: string, context: SealContext): SealedSecret {
  const dataKey = randomBytes(32);
  try {
    const data = encrypt(dataKey, Buffer.from(secret, 'utf8'), dataAad(context));
    return { ...wrap(ring.current, dataKey, context), ...data };
  } finally {
    dataKey.fill(0);
  }
}

/** The secret of a sealed one; EnvelopeError when it does not open. */
export function open(ring: KekRing, sealed: SealedSecret, context: SealContext): string {
  const dataKey = unwrap(ring, sealed, context);
  try {
    return decrypt(dataKey, sealed, dataAad(context)).toString('utf8');
  } finally {
    dataKey.fill(0);
  }
}

/**
 * The same secret with its data key wrapped under the ring's current KEK (KEK rotation): the
 * ciphertext is untouched, only the wrapped data key and its KEK id change.
 */
export function rewrap(ring: KekRing, sealed: SealedSecret, context: SealContext): SealedSecret {
  const dataKey = unwrap(ring, sealed, context);
  try {
    return { ...sealed, ...wrap(ring.current, dataKey, context) };
  } finally {
    dataKey.fill(0);
  }
}
