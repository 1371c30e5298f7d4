// A development signing key for `npm start`, generated on first start under .data/ (never
// committed), and tokens signed with it for the printed banner and `npm run demo`; and the
// development PRODUCT_EVENTS_USER_KEY, made the same way.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SignJWT, exportPKCS8, exportSPKI, generateKeyPair, importPKCS8 } from 'jose';

export const DEV_ISSUER = 'atelier-dev';
export const DEV_AUDIENCE = 'atelier-app';

export interface DevKeys {
  publicKeyPem: string;
  userToken: string;
  adminToken: string;
}

export async function devKeys(dataDir: string): Promise<DevKeys> {
  const dir = path.join(dataDir, 'dev-keys');
  const privatePath = path.join(dir, 'private.pem');
  const publicPath = path.join(dir, 'public.pem');
  if (!existsSync(privatePath)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
    writeFileSync(privatePath, await exportPKCS8(privateKey), { mode: 0o600 });
    writeFileSync(publicPath, await exportSPKI(publicKey));
  }
  const privateKey = await importPKCS8(readFileSync(privatePath, 'utf8'), 'EdDSA');
  const sign = (subject: string, roles: string[]) =>
    new SignJWT({ roles })
      .setProtectedHeader({ alg: 'EdDSA' })
      .setSubject(subject)
      .setIssuer(DEV_ISSUER)
      .setAudience(DEV_AUDIENCE)
      .setIssuedAt()
      .setExpirationTime('12h')
      .sign(privateKey);
  const keys = {
    publicKeyPem: readFileSync(publicPath, 'utf8'),
    userToken: await sign('dev-user', []),
    adminToken: await sign('dev-admin', ['super_admin']),
  };
  writeFileSync(path.join(dataDir, 'dev-tokens.json'), JSON.stringify({ user: keys.userToken, admin: keys.adminToken }, null, 2), {
    mode: 0o600,
  });
  return keys;
}

/**
 * The PRODUCT_EVENTS_USER_KEY of `npm start`'s jobs, media and community: random, made on first
 * start and kept under .data/ so that a user's user_ref stays the same from one start to the next.
 */
export function devProductEventsKey(dataDir: string): string {
  const dir = path.join(dataDir, 'dev-keys');
  const keyPath = path.join(dir, 'product-events-user.key');
  if (!existsSync(keyPath)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(keyPath, randomBytes(32).toString('base64url'), { mode: 0o600 });
  }
  return readFileSync(keyPath, 'utf8').trim();
}

/**
 * The CREDENTIALS_KEK_FILE of `npm start`'s jobs (docs/credentials.md): one random key-encryption
 * key, made on first start and kept under .data/, so that users' keys registered in one run still
 * open in the next. Answers the file's path.
 */
export function devCredentialsKekFile(dataDir: string): string {
  const dir = path.join(dataDir, 'dev-keys');
  const kekPath = path.join(dir, 'credentials-kek.json');
  if (!existsSync(kekPath)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(kekPath, JSON.stringify({ current: 'dev-1', keys: { 'dev-1': randomBytes(32).toString('base64') } }), { mode: 0o600 });
  }
  return kekPath;
}
