import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { SignJWT, exportJWK, exportSPKI, generateKeyPair } from 'jose';
import { KeySourceUnavailable, TokenRefused, createTokenVerifier } from './token-verifier.js';

const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
const publicKeyPem = await exportSPKI(publicKey);
const trust = { issuer: 'test-issuer', audience: 'atelier-app' };

async function token(
  subject: string,
  expiresAt: number | null,
  options: { roles?: string[]; issuer?: string; audience?: string; notBefore?: number } = {},
): Promise<string> {
  const jwt = new SignJWT({ roles: options.roles ?? [] })
    .setProtectedHeader({ alg: 'EdDSA', kid: 'k1' })
    .setSubject(subject)
    .setIssuer(options.issuer ?? trust.issuer)
    .setAudience(options.audience ?? trust.audience)
    .setIssuedAt();
  if (expiresAt !== null) jwt.setExpirationTime(expiresAt);
  if (options.notBefore !== undefined) jwt.setNotBefore(options.notBefore);
  return jwt.sign(privateKey);
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('token verifier', () => {
  afterEach(() => vi.useRealTimers());

  it('returns the subject, roles and end of validity (exp + tolerance), the same on a repeated (cached) verification', async () => {
    const verifier = await createTokenVerifier({ publicKeyPem, ...trust, clockToleranceS: 30 });
    const exp = nowSeconds() + 600;
    const jwt = await token('user-1', exp, { roles: ['admin'] });
    const first = await verifier.verify(jwt);
    expect(first).toEqual({ userId: 'user-1', roles: ['admin'], operatorRole: 'admin', validUntilMs: (exp + 30) * 1000 });
    expect(await verifier.verify(jwt)).toEqual(first);
  });

  it('refuses a token without exp, with its own kind', async () => {
    const verifier = await createTokenVerifier({ publicKeyPem, ...trust });
    const refusal = await verifier.verify(await token('user-1', null)).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(TokenRefused);
    expect(refusal).toMatchObject({ kind: 'no-expiry', message: expect.stringMatching(/exp/) });
  });

  it('refuses another issuer or another audience', async () => {
    const verifier = await createTokenVerifier({ publicKeyPem, ...trust });
    await expect(verifier.verify(await token('u', nowSeconds() + 60, { issuer: 'evil' }))).rejects.toMatchObject({ kind: 'invalid' });
    await expect(verifier.verify(await token('u', nowSeconds() + 60, { audience: 'other-app' }))).rejects.toMatchObject({
      kind: 'invalid',
    });
  });

  it('allows the configured clock skew: expired 5 s ago or valid from 5 s in the future passes; beyond the tolerance does not', async () => {
    const verifier = await createTokenVerifier({ publicKeyPem, ...trust, clockToleranceS: 30, cacheSize: 0 });
    expect((await verifier.verify(await token('u', nowSeconds() - 5))).userId).toBe('u');
    expect((await verifier.verify(await token('u', nowSeconds() + 600, { notBefore: nowSeconds() + 5 }))).userId).toBe('u');
    const issuedAhead = await new SignJWT({})
      .setProtectedHeader({ alg: 'EdDSA' })
      .setSubject('u')
      .setIssuer(trust.issuer)
      .setAudience(trust.audience)
      .setIssuedAt(nowSeconds() + 5)
      .setExpirationTime(nowSeconds() + 600)
      .sign(privateKey);
    expect((await verifier.verify(issuedAhead)).userId).toBe('u');
    await expect(verifier.verify(await token('u', nowSeconds() - 40))).rejects.toMatchObject({ kind: 'expired' });
    const strict = await createTokenVerifier({ publicKeyPem, ...trust, clockToleranceS: 0, cacheSize: 0 });
    await expect(strict.verify(await token('u', nowSeconds() - 5))).rejects.toMatchObject({ kind: 'expired' });
  });

  it('refuses a token that expired (past the tolerance) while it sat in the cache', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const verifier = await createTokenVerifier({ publicKeyPem, ...trust, clockToleranceS: 5 });
    const jwt = await token('user-1', nowSeconds() + 30);
    await verifier.verify(jwt);
    vi.setSystemTime(Date.now() + 36_000);
    await expect(verifier.verify(jwt)).rejects.toMatchObject({ kind: 'expired' });
  });

  it('never caches a refusal: a tampered token stays refused, the genuine one still passes', async () => {
    const verifier = await createTokenVerifier({ publicKeyPem, ...trust });
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
    const verifier = await createTokenVerifier({ publicKeyPem, ...trust, cacheSize: 2 });
    const jwts = await Promise.all(['u-a', 'u-b', 'u-c'].map((subject) => token(subject, nowSeconds() + 600)));
    for (const jwt of jwts) await verifier.verify(jwt);
    expect((await verifier.verify(jwts[0]!)).userId).toBe('u-a');
  });

  it('refuses a token without a usable subject', async () => {
    const verifier = await createTokenVerifier({ publicKeyPem, ...trust });
    await expect(verifier.verify(await token('has spaces', nowSeconds() + 600))).rejects.toThrow(/subject/);
  });
});

describe('token verifier with a JWKS', () => {
  let server: Server;
  let answer: 'keys' | 'error' | 'garbage' = 'keys';
  let jwksUrl: string;

  beforeAll(async () => {
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'EdDSA' };
    server = createServer((_request, response) => {
      if (answer === 'error') response.writeHead(500).end('boom');
      else
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(answer === 'keys' ? JSON.stringify({ keys: [jwk] }) : '{"nope"');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('verifies with the served keys; a JWKS answering 500 or garbage, or nobody listening, is KeySourceUnavailable, not a refusal', async () => {
    const jwt = await token('user-1', nowSeconds() + 600);
    answer = 'keys';
    expect((await (await createTokenVerifier({ jwksUrl, ...trust })).verify(jwt)).userId).toBe('user-1');
    for (const broken of ['error', 'garbage'] as const) {
      answer = broken;
      await expect((await createTokenVerifier({ jwksUrl, ...trust })).verify(jwt)).rejects.toBeInstanceOf(KeySourceUnavailable);
    }
    const nobody = await createTokenVerifier({ jwksUrl: 'http://127.0.0.1:1/jwks.json', ...trust });
    await expect(nobody.verify(jwt)).rejects.toBeInstanceOf(KeySourceUnavailable);
    // A token that is not even a JWT is refused without asking for keys.
    await expect(nobody.verify('garbage')).rejects.toBeInstanceOf(TokenRefused);
  });
});
