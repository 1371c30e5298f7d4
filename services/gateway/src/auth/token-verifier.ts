import { createRemoteJWKSet, importSPKI, jwtVerify, type JWTPayload } from 'jose';
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
  return {
    async verify(token) {
      const payload = await verifyJwt(token);
      if (typeof payload.sub !== 'string' || !USER_ID_PATTERN.test(payload.sub)) throw new Error('the token has no usable subject');
      const roles = Array.isArray(payload.roles) ? payload.roles.filter((r): r is string => typeof r === 'string') : [];
      return { userId: payload.sub, roles, isAdmin: roles.includes('admin') };
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
