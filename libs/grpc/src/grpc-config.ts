import { doc, str } from '@atelier/config';

/**
 * The variables of every process that calls or serves gRPC: mutual TLS material mounted from the
 * platform's CA (cert-manager or your Secrets in Kubernetes; generated under `.data/dev-pki` by
 * `npm start`), and the trust domain of the `spiffe://<domain>/svc/<name>` identities.
 */
export const grpcSecurityConfigSpec = {
  GRPC_TLS_CA_FILE: doc(str(), "PEM file of the platform's CA: a peer must prove a certificate it issued"),
  GRPC_TLS_CERT_FILE: doc(
    str(),
    "PEM file of this process's certificate, whose URI SAN `spiffe://<GRPC_TRUST_DOMAIN>/svc/<name>` is its identity",
  ),
  GRPC_TLS_KEY_FILE: doc(str(), "PEM file of this process's private key"),
  GRPC_TRUST_DOMAIN: doc(
    str({ default: 'atelier.local', pattern: /^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/ }),
    'the trust domain of the `spiffe://<domain>/svc/<name>` identities',
  ),
} as const;
