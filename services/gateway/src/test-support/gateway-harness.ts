import { SignJWT, exportSPKI, generateKeyPair } from 'jose';
import { startHttpServiceProcess, type ServiceProcess, type TestPlatform } from '@atelier/testing';

export const TEST_ISSUER = 'e2e';
export const TEST_AUDIENCE = 'atelier-app';

/** A signing key for test tokens, and the gateway variables that trust it. */
export async function testTokenKey(): Promise<{
  gatewayEnv: Record<string, string>;
  /** A token for `subject`; `exp` in seconds since the epoch (null: none), default in 10 minutes. */
  sign(subject: string, options?: { roles?: string[]; exp?: number | null; nbf?: number; issuer?: string }): Promise<string>;
}> {
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  return {
    gatewayEnv: { JWT_PUBLIC_KEY: await exportSPKI(publicKey), JWT_ISSUER: TEST_ISSUER, JWT_AUDIENCE: TEST_AUDIENCE },
    async sign(subject, options = {}) {
      const jwt = new SignJWT({ roles: options.roles ?? [] })
        .setProtectedHeader({ alg: 'EdDSA' })
        .setSubject(subject)
        .setIssuer(options.issuer ?? TEST_ISSUER)
        .setAudience(TEST_AUDIENCE)
        .setIssuedAt();
      const exp = options.exp === undefined ? Math.floor(Date.now() / 1000) + 600 : options.exp;
      if (exp !== null) jwt.setExpirationTime(exp);
      if (options.nbf !== undefined) jwt.setNotBefore(options.nbf);
      return jwt.sign(privateKey);
    },
  };
}

/**
 * One more gateway process on the platform's services, with variables of its own (a second
 * replica, a broken JWKS, a different stream ceiling). The caller stops it.
 */
export async function startExtraGateway(platform: TestPlatform, env: Record<string, string>): Promise<ServiceProcess> {
  return startHttpServiceProcess('gateway', {
    CATALOG_ADDR: platform.catalog.address,
    MEDIA_ADDR: platform.media.address,
    JOBS_ADDR: platform.jobs.address,
    COMMUNITY_ADDR: platform.community!.address,
    ...env,
  });
}

/** A gauge or counter of a service's Prometheus /metrics, summed over its labels. */
export async function readMetric(metricsPort: number, name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name} `) || line.startsWith(`${name}{`))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}
