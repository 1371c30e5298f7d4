import { createRemoteJWKSet, errors as joseErrors, importSPKI, jwtVerify, type JWTPayload } from 'jose';
import { ExpiringCache } from '@atelier/caching';
import { USER_ID_PATTERN } from '@atelier/validation';
import { operatorRoleOf, type OperatorRole } from './operator-roles.js';

/** Who is calling: the token's subject and roles, and when the token stops being honoured. */
export interface Caller {
  userId: string;
  roles: readonly string[];
  /** The highest operator role the token carries (auth/operator-roles.ts); null: a user of the app. */
  operatorRole: OperatorRole | null;
  /** exp + the clock tolerance, in ms since the epoch: a stream opened with the token ends then. */
  validUntilMs: number;
}

export interface TokenVerifier {
  /**
   * The caller; a TokenRefused whose message says what was wrong with the token; or a
   * KeySourceUnavailable when the keys could not be fetched (not the token's fault).
   */
  verify(token: string): Promise<Caller>;
}

/** Why a token was refused: the API answers each with a code of its own. */
export type RefusalKind = 'expired' | 'no-expiry' | 'invalid';

export class TokenRefused extends Error {
  override name = 'TokenRefused';
  constructor(
    readonly kind: RefusalKind,
    message: string,
  ) {
    super(message);
  }
}

/** The JWKS could not be read (down, slow, not a key set): a 503, never a 401. */
export class KeySourceUnavailable extends Error {
  override name = 'KeySourceUnavailable';
}

const ALGORITHMS = ['EdDSA', 'RS256', 'ES256', 'PS256'];

/** jose's verdicts on the token itself; any other failure of a JWKS verification is the key source's. */
const TOKEN_FAULTS = new Set([
  'ERR_JWT_CLAIM_VALIDATION_FAILED',
  'ERR_JWT_EXPIRED',
  'ERR_JWT_INVALID',
  'ERR_JWS_INVALID',
  'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
  'ERR_JWKS_NO_MATCHING_KEY',
  'ERR_JWKS_MULTIPLE_MATCHING_KEYS',
  'ERR_JOSE_ALG_NOT_ALLOWED',
  'ERR_JOSE_NOT_SUPPORTED',
]);

function classify(error: unknown, fromJwks: boolean): Error {
  const code = (error as { code?: unknown }).code;
  const message = (error as Error).message;
  if (error instanceof joseErrors.JWTExpired) return new TokenRefused('expired', 'the token has expired');
  if (error instanceof joseErrors.JWTClaimValidationFailed && error.claim === 'exp' && error.reason === 'missing')
    return new TokenRefused('no-expiry', 'the token has no "exp" claim (tokens must expire)');
  if (typeof code === 'string' && TOKEN_FAULTS.has(code)) return new TokenRefused('invalid', message);
  // Anything else during a JWKS verification is fetching the keys: a timeout, a refused
  // connection, a non-200 answer, a body that is no key set.
  if (fromJwks) return new KeySourceUnavailable(`the token keys (JWKS) could not be read: ${message}`);
  return new TokenRefused('invalid', message);
}

/**
 * Verifies bearer JWTs against the configured public key (PEM) or JWKS URL: the issuer and the
 * audience must match, `exp` is required, and `exp`/`nbf` are checked with clockToleranceS of
 * slack for the issuer's clock. `sub` is the user id; `roles` (an array) may include `admin`.
 */
export async function createTokenVerifier(options: {
  publicKeyPem?: string;
  jwksUrl?: string;
  issuer: string;
  audience: string;
  /** Seconds of clock skew allowed (default 30). */
  clockToleranceS?: number;
  /** Verified tokens remembered (default 10,000; 0 turns the cache off). */
  cacheSize?: number;
  /** Longest a verified token is remembered (default 60 s), never past its `exp`. */
  cacheTtlMs?: number;
}): Promise<TokenVerifier> {
  const clockToleranceS = options.clockToleranceS ?? 30;
  const verifyOptions = {
    algorithms: ALGORITHMS,
    issuer: options.issuer,
    audience: options.audience,
    requiredClaims: ['exp'],
    clockTolerance: clockToleranceS,
  };
  let verifyJwt: (token: string) => Promise<JWTPayload>;
  if (options.jwksUrl) {
    const jwks = createRemoteJWKSet(new URL(options.jwksUrl), { timeoutDuration: 3_000 });
    verifyJwt = async (token) => {
      try {
        return (await jwtVerify(token, jwks, verifyOptions)).payload;
      } catch (error) {
        throw classify(error, true);
      }
    };
  } else if (options.publicKeyPem) {
    const key = await importPublicKey(options.publicKeyPem.replace(/\\n/g, '\n'));
    verifyJwt = async (token) => {
      try {
        return (await jwtVerify(token, key, verifyOptions)).payload;
      } catch (error) {
        throw classify(error, false);
      }
    };
  } else {
    throw new Error('set JWT_PUBLIC_KEY (PEM) or JWKS_URL');
  }
  // Tokens already verified, so a client polling with the same token costs a map lookup instead
  // of a signature check. An entry lives until the token stops being honoured or cacheTtlMs
  // passes (so a key removed from a JWKS stops being honoured soon); only successes are remembered.
  const verified = new ExpiringCache<string, Caller>(options.cacheSize ?? 10_000);
  const cacheTtlMs = options.cacheTtlMs ?? 60_000;
  return {
    async verify(token) {
      const cached = verified.get(token);
      if (cached) return cached;
      const payload = await verifyJwt(token);
      if (typeof payload.sub !== 'string' || !USER_ID_PATTERN.test(payload.sub))
        throw new TokenRefused('invalid', 'the token has no usable subject');
      const roles = Array.isArray(payload.roles) ? payload.roles.filter((r): r is string => typeof r === 'string') : [];
      // requiredClaims made exp present; jose checked that it is a number.
      const validUntilMs = (payload.exp! + clockToleranceS) * 1000;
      const caller = { userId: payload.sub, roles, operatorRole: operatorRoleOf(roles), validUntilMs };
      verified.set(token, caller, Math.min(validUntilMs, Date.now() + cacheTtlMs));
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
