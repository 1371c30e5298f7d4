import { readFileSync } from 'node:fs';
import type { PeerCertificate } from 'node:tls';
import { ServerCredentials, credentials, type ChannelCredentials } from '@grpc/grpc-js';

/**
 * What a process needs to speak mutual TLS with its peers: the platform's CA (the only issuer
 * trusted on either side), its own certificate and key, and the trust domain of the identities.
 * A service's identity is the URI SAN `spiffe://<trustDomain>/svc/<name>` of its certificate.
 */
export interface GrpcSecurity {
  ca: Buffer;
  cert: Buffer;
  key: Buffer;
  trustDomain: string;
}

/** The environment variables every gRPC server and client reads (docs/deploying.md, "Service identity and authorization"). */
export interface GrpcSecurityFiles {
  GRPC_TLS_CA_FILE: string;
  GRPC_TLS_CERT_FILE: string;
  GRPC_TLS_KEY_FILE: string;
  GRPC_TRUST_DOMAIN: string;
}

/** Reads the CA, certificate and key named by the configuration; a missing file is a clear error. */
export function loadGrpcSecurity(files: GrpcSecurityFiles): GrpcSecurity {
  const read = (variable: keyof GrpcSecurityFiles) => {
    try {
      return readFileSync(files[variable]);
    } catch (error) {
      throw new Error(`${variable}: cannot read ${files[variable]} (${(error as NodeJS.ErrnoException).code ?? String(error)})`, {
        cause: error,
      });
    }
  };
  return {
    ca: read('GRPC_TLS_CA_FILE'),
    cert: read('GRPC_TLS_CERT_FILE'),
    key: read('GRPC_TLS_KEY_FILE'),
    trustDomain: files.GRPC_TRUST_DOMAIN,
  };
}

/** The URI SAN a service's certificate carries: who it is, within the platform's trust domain. */
export function serviceIdentityUri(trustDomain: string, service: string): string {
  return `spiffe://${trustDomain}/svc/${service}`;
}

/**
 * The service name a certificate proves, from its `URI:spiffe://<trustDomain>/svc/<name>` SAN;
 * undefined for any other certificate (other trust domain, no such SAN, several of them).
 */
export function identityOfCertificate(certificate: PeerCertificate | undefined, trustDomain: string): string | undefined {
  const prefix = `URI:${serviceIdentityUri(trustDomain, '')}`;
  const names = (certificate?.subjectaltname ?? '')
    .split(', ')
    .filter((entry) => entry.startsWith(prefix))
    .map((entry) => entry.slice(prefix.length));
  return names.length === 1 && /^[a-z][a-z0-9-]*$/.test(names[0]!) ? names[0] : undefined;
}

/** Server credentials that require a client certificate issued by the platform's CA. */
export function serverCredentialsOf(security: GrpcSecurity): ServerCredentials {
  return ServerCredentials.createSsl(security.ca, [{ private_key: security.key, cert_chain: security.cert }], true);
}

/**
 * Channel credentials presenting this process's certificate and accepting only a server whose
 * certificate proves `serverName` (its SPIFFE URI, not its DNS name: pods are reached through
 * headless Services and loopback addresses a DNS SAN could not list).
 */
export function channelCredentialsOf(security: GrpcSecurity, serverName: string): ChannelCredentials {
  return credentials.createSsl(security.ca, security.key, security.cert, {
    checkServerIdentity: serverIdentityCheck(security, serverName),
  });
}

/**
 * The TLS `checkServerIdentity` of a client: the server's certificate must prove `serverName`
 * (its SPIFFE URI SAN); the host it was reached at is not looked at.
 */
export function serverIdentityCheck(
  security: GrpcSecurity,
  serverName: string,
): (host: string, certificate: PeerCertificate) => Error | undefined {
  return (_host, certificate) => {
    const identity = identityOfCertificate(certificate, security.trustDomain);
    return identity === serverName
      ? undefined
      : new Error(`the server's certificate proves ${identity ?? 'no service identity'}, not ${serverName}`);
  };
}

/**
 * Channel options to go with channelCredentialsOf: the TLS server name (SNI) becomes the expected
 * identity instead of the target's host, which is often an IP address — SNI may not carry one
 * (RFC 6066; Node warns), and the identity check does not look at it.
 */
export function tlsChannelOptions(serverName: string): Record<string, string> {
  return { 'grpc.ssl_target_name_override': serverName };
}

/** `atelier.jobs.v1.JobsService` → `jobs`: the service whose certificate a client expects. */
export function serverNameOfService(fullServiceName: string): string {
  const match = /^atelier\.([a-z0-9_]+)\.v\d+\./.exec(fullServiceName);
  if (!match?.[1]) throw new Error(`${fullServiceName} is not an atelier service`);
  return match[1];
}
