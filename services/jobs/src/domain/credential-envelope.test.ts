import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EnvelopeError, open, rewrap, seal, type SealContext } from './credential-envelope.js';
import { parseKekRing, type KekRing } from './kek-ring.js';

const context: SealContext = { credentialId: '0190a0b0-0000-7000-8000-000000000001', userId: 'user-1', providerCode: 'sim' };

function ring(current: string, ...ids: string[]): KekRing {
  const keys = Object.fromEntries([current, ...ids].map((id) => [id, KEYS.get(id)!.toString('base64')]));
  return parseKekRing(JSON.stringify({ current, keys }));
}
const KEYS = new Map(['k1', 'k2'].map((id) => [id, randomBytes(32)]));

describe('credential envelope', () => {
  it('seals and opens a key; the sealed parts do not contain it', () => {
    const secret = 'sk-live-' + randomBytes(24).toString('hex');
    const sealed = seal(ring('k1'), secret, context);
    expect(sealed.kekId).toBe('k1');
    expect(open(ring('k1'), sealed, context)).toBe(secret);
    const stored = Buffer.concat([sealed.wrappedKey, sealed.wrapNonce, sealed.wrapTag, sealed.ciphertext, sealed.nonce, sealed.tag]);
    expect(stored.includes(Buffer.from(secret))).toBe(false);
    expect(sealed.ciphertext.equals(seal(ring('k1'), secret, context).ciphertext)).toBe(false); // a data key and nonce each time
  });

  it.each([
    ['ciphertext', (s: ReturnType<typeof seal>) => s.ciphertext],
    ['tag', (s: ReturnType<typeof seal>) => s.tag],
    ['nonce', (s: ReturnType<typeof seal>) => s.nonce],
    ['wrapped data key', (s: ReturnType<typeof seal>) => s.wrappedKey],
    ['wrap tag', (s: ReturnType<typeof seal>) => s.wrapTag],
  ])('refuses a tampered %s', (_name, part) => {
    const sealed = seal(ring('k1'), 'a-user-key', context);
    part(sealed)[0]! ^= 0x01;
    expect(() => open(ring('k1'), sealed, context)).toThrow(EnvelopeError);
  });

  it('refuses a sealed key moved to another credential or user', () => {
    const sealed = seal(ring('k1'), 'a-user-key', context);
    expect(() => open(ring('k1'), sealed, { ...context, credentialId: '0190a0b0-0000-7000-8000-000000000002' })).toThrow(EnvelopeError);
    expect(() => open(ring('k1'), sealed, { ...context, userId: 'user-2' })).toThrow(EnvelopeError);
  });

  it('refuses a KEK id changed by hand, and an unknown KEK', () => {
    const sealed = seal(ring('k1', 'k2'), 'a-user-key', context);
    expect(() => open(ring('k1', 'k2'), { ...sealed, kekId: 'k2' }, context)).toThrow(EnvelopeError);
    expect(() => open(ring('k2'), sealed, context)).toThrow(/k1 is not in CREDENTIALS_KEK_FILE/);
  });

  it('rewraps under the current KEK: the same ciphertext, opened by the new KEK alone', () => {
    const sealed = seal(ring('k1'), 'a-user-key', context);
    const moved = rewrap(ring('k2', 'k1'), sealed, context);
    expect(moved.kekId).toBe('k2');
    expect(moved.ciphertext.equals(sealed.ciphertext)).toBe(true);
    expect(open(ring('k2'), moved, context)).toBe('a-user-key');
  });
});

describe('parseKekRing', () => {
  it.each([
    ['not json', /not JSON/],
    ['{"keys": {}}', /"current"/],
    ['{"current": "k1", "keys": {"k1": "c2hvcnQ="}}', /exactly 32 bytes/],
    [`{"current": "k9", "keys": {"k1": "${randomBytes(32).toString('base64')}"}}`, /k9 is not among/],
    [`{"current": "k 1", "keys": {}}`, /"current"/],
  ])('refuses %s', (text, message) => {
    expect(() => parseKekRing(text)).toThrow(message);
  });

  it('never repeats a key in its errors', () => {
    const key = randomBytes(31).toString('base64');
    try {
      parseKekRing(JSON.stringify({ current: 'k1', keys: { k1: key } }));
    } catch (error) {
      expect((error as Error).message).not.toContain(key);
    }
  });
});
