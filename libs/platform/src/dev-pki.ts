// A certificate authority and one certificate per service identity, for `npm start` and tests —
// never for production, where cert-manager or your own PKI issues them (charts/atelier). Keys are
// generated at run time and written with owner-only permissions; nothing here is committed.
import { webcrypto } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { serviceIdentityUri } from '@atelier/grpc';
import { PLATFORM_IDENTITIES } from './platform-services.js';

const DEV_TRUST_DOMAIN = 'atelier.local';

/** Where one identity's files are, as the GRPC_TLS_* variables name them. */
export interface IdentityFiles {
  GRPC_TLS_CA_FILE: string;
  GRPC_TLS_CERT_FILE: string;
  GRPC_TLS_KEY_FILE: string;
  GRPC_TRUST_DOMAIN: string;
}

export interface DevPki {
  readonly directory: string;
  readonly trustDomain: string;
  /** The variables that make a process use `identity`'s certificate. */
  filesOf(identity: string): IdentityFiles;
}

const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const pem = (label: string, der: ArrayBuffer) =>
  `-----BEGIN ${label}-----\n${Buffer.from(der)
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .trimEnd()}\n-----END ${label}-----\n`;

async function keyPair(): Promise<webcrypto.CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
}

/**
 * Creates (or, when the directory already holds them, reuses) a CA and a certificate for each of
 * `identities` with the URI SAN `spiffe://<trustDomain>/svc/<identity>`, valid for `validDays`.
 */
export async function ensureDevPki(
  directory: string,
  options: { identities?: readonly string[]; trustDomain?: string; validDays?: number } = {},
): Promise<DevPki> {
  const identities = options.identities ?? PLATFORM_IDENTITIES;
  const trustDomain = options.trustDomain ?? DEV_TRUST_DOMAIN;
  const validDays = options.validDays ?? 365;
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const file = (name: string) => path.join(directory, name);
  const complete = ['ca.crt', ...identities.flatMap((id) => [`${id}.crt`, `${id}.key`])].every((name) => existsSync(file(name)));
  if (!complete) {
    // @peculiar/x509 needs the Reflect metadata polyfill loaded first; only certificate
    // generation pays for (and sees) it.
    await import('reflect-metadata');
    const x509 = await import('@peculiar/x509');
    x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
    const notBefore = new Date(Date.now() - 60_000);
    const notAfter = new Date(Date.now() + validDays * 86_400_000);
    const caKeys = await keyPair();
    const ca = await x509.X509CertificateGenerator.createSelfSigned({
      name: `CN=Atelier development CA ${trustDomain}`,
      keys: caKeys,
      notBefore,
      notAfter,
      signingAlgorithm: algorithm,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
      ],
    });
    writeFileSync(file('ca.crt'), ca.toString('pem') + '\n');
    for (const identity of identities) {
      const keys = await keyPair();
      const certificate = await x509.X509CertificateGenerator.create({
        subject: `CN=${identity}`,
        issuer: ca.subject,
        publicKey: keys.publicKey,
        signingKey: caKeys.privateKey,
        notBefore,
        notAfter,
        signingAlgorithm: algorithm,
        extensions: [
          new x509.BasicConstraintsExtension(false, undefined, true),
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyAgreement, true),
          new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth]),
          new x509.SubjectAlternativeNameExtension([{ type: 'url', value: serviceIdentityUri(trustDomain, identity) }]),
          await x509.AuthorityKeyIdentifierExtension.create(ca),
        ],
      });
      writeFileSync(file(`${identity}.crt`), certificate.toString('pem') + '\n');
      writeFileSync(file(`${identity}.key`), pem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)), {
        mode: 0o600,
      });
    }
  }
  return {
    directory,
    trustDomain,
    filesOf: (identity) => ({
      GRPC_TLS_CA_FILE: file('ca.crt'),
      GRPC_TLS_CERT_FILE: file(`${identity}.crt`),
      GRPC_TLS_KEY_FILE: file(`${identity}.key`),
      GRPC_TRUST_DOMAIN: trustDomain,
    }),
  };
}
