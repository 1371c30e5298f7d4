import { createRemoteJWKSet, importSPKI, jwtVerify, type JWTPayload } from 'jose';
import { ExpiringCache } from '@atelier/caching';
import { USER_ID_PATTERN } from '@atelier/validation';

/** Who is calling: the token's subject and roles. */
export interface Caller {
  userId: string;
  roles: readonly string[];
  isAdmin: boolean;
}

export interface TokenVerifier {
  /** The caller, or an error whose message says what was wrong with the token. */
  verify(token: string): Promise<Caller>;
}

const ALGORITHMS = ['EdDSA', 'RS256', 'ES256', 'PS256'];

/**
 * Verifies bearer JWTs against the configured public key (PEM) or JWKS URL, and the issuer and
 * audience when configured. `sub` is the user id; `roles` (an array) may include `admin`.
 */
export async function createTokenVerifier(options: {
  publicKeyPem?: string;
  jwksUrl?: string;
  issuer?: string;
  audience?: string;
  /** Verified tokens remembered (default 10,000; 0 turns the cache off). */
  cacheSize?: number;
  /** Longest a verified token is remembered (default 60 s), never past its `exp`. */
  cacheTtlMs?: number;
}): Promise<TokenVerifier> {
  const verifyOptions = { algorithms: ALGORITHMS, issuer: options.issuer, audience: options.audience };
  let verifyJwt: (token: string) => Promise<JWTPayload>;
  if (options.jwksUrl) {
    const jwks = createRemoteJWKSet(new URL(options.jwksUrl));
    verifyJwt = async (token) => (await jwtVerify(token, jwks, verifyOptions)).payload;
  } else if (options.publicKeyPem) {
    const key = await importPublicKey(options.publicKeyPem.replace(/\\n/g, '\n'));
    verifyJwt = async (token) => (await jwtVerify(token, key, verifyOptions)).payload;
  } else {
    throw new Error('set JWT_PUBLIC_KEY (PEM) or JWKS_URL');
  }
  // Tokens already verified, so a client polling with the same token costs a map lookup instead
  // of a signature check. An entry lives until the token expires or cacheTtlMs passes (so a key
  // removed from a JWKS stops being honoured soon); only successes are remembered.
  const verified = new ExpiringCache<string, Caller>(options.cacheSize ?? 10_000);
  const cacheTtlMs = options.cacheTtlMs ?? 60_000;
  return {
    async verify(token) {
      const cached = verified.get(token);
      if (cached) return cached;
      const payload = await verifyJwt(token);
      if (typeof payload.sub !== 'string' || !USER_ID_PATTERN.test(payload.sub)) throw new Error('the token has no usable subject');
      const roles = Array.isArray(payload.roles) ? payload.roles.filter((r): r is string => typeof r === 'string') : [];
      const caller = { userId: payload.sub, roles, isAdmin: roles.includes('admin') };
      const expiresAtMs = typeof payload.exp === 'number' ? payload.exp * 1000 : Number.POSITIVE_INFINITY;
      verified.set(token, caller, Math.min(expiresAtMs, Date.now() + cacheTtlMs));
      return caller;
    },
  };
}

async function importPublicKey(pem: string): ReturnType<typeof importSPKI> {
  let lastError: unknown;
  for (const algorithm of ALGORITHMS) {
    try {
      return await importSPKI(pem, algorithm);
    } catch (error) {
      lastError = error;
    }
  }
  throw new Error(`JWT_PUBLIC_KEY is not a PEM public key for ${ALGORITHMS.join(', ')}: ${(lastError as Error).message}`);
}
