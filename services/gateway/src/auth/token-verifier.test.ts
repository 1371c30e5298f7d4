import { afterEach, describe, expect, it, vi } from 'vitest';
import { SignJWT, exportSPKI, generateKeyPair } from 'jose';
import { createTokenVerifier } from './token-verifier.js';

const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
const publicKeyPem = await exportSPKI(publicKey);

async function token(subject: string, expiresAt: number, roles: string[] = []): Promise<string> {
  return new SignJWT({ roles })
    .setProtectedHeader({ alg: 'EdDSA' })
    .setSubject(subject)
    .setIssuedAt()
    .setExpirationTime(expiresAt)
    .sign(privateKey);
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('token verifier', () => {
  afterEach(() => vi.useRealTimers());

  it('returns the subject and roles, the same on a repeated (cached) verification', async () => {
    const verifier = await createTokenVerifier({ publicKeyPem });
    const jwt = await token('user-1', nowSeconds() + 600, ['admin']);
    const first = await verifier.verify(jwt);
    expect(first).toEqual({ userId: 'user-1', roles: ['admin'], isAdmin: true });
    expect(await verifier.verify(jwt)).toEqual(first);
  });

  it('refuses a token that expired while it sat in the cache', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const verifier = await createTokenVerifier({ publicKeyPem });
    const jwt = await token('user-1', nowSeconds() + 30);
    await verifier.verify(jwt);
    vi.setSystemTime(Date.now() + 31_000);
    await expect(verifier.verify(jwt)).rejects.toThrow(/exp/);
  });

  it('never caches a refusal: a tampered token stays refused, the genuine one still passes', async () => {
    const verifier = await createTokenVerifier({ publicKeyPem });
    const jwt = await token('user-1', nowSeconds() + 600);
    const [header, payload, signature] = jwt.split('.') as [string, string, string];
    const forgedPayload = Buffer.from(JSON.stringify({ sub: 'user-2', exp: nowSeconds() + 600 })).toString('base64url');
    const forged = `${header}.${forgedPayload}.${signature}`;
    await expect(verifier.verify(forged)).rejects.toThrow(/signature/);
    await expect(verifier.verify(forged)).rejects.toThrow(/signature/);
    expect((await verifier.verify(jwt)).userId).toBe('user-1');
    expect(payload).not.toBe(forgedPayload);
  });

  it('keeps at most cacheSize tokens and still verifies evicted ones', async () => {
    const verifier = await createTokenVerifier({ publicKeyPem, cacheSize: 2 });
    const jwts = await Promise.all(['u-a', 'u-b', 'u-c'].map((subject) => token(subject, nowSeconds() + 600)));
    for (const jwt of jwts) await verifier.verify(jwt);
    expect((await verifier.verify(jwts[0]!)).userId).toBe('u-a');
  });

  it('refuses a token without a usable subject', async () => {
    const verifier = await createTokenVerifier({ publicKeyPem });
    await expect(verifier.verify(await token('has spaces', nowSeconds() + 600))).rejects.toThrow(/subject/);
  });
});
