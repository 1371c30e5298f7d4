import { str } from '@atelier/config';

/**
 * The variables of every process that calls or serves gRPC: mutual TLS material mounted from the
 * platform's CA (cert-manager or your Secrets in Kubernetes; generated under `.data/dev-pki` by
 * `npm start`), and the trust domain of the `spiffe://<domain>/svc/<name>` identities.
 */
export const grpcSecurityConfigSpec = {
  GRPC_TLS_CA_FILE: str(),
  GRPC_TLS_CERT_FILE: str(),
  GRPC_TLS_KEY_FILE: str(),
  GRPC_TRUST_DOMAIN: str({ default: 'atelier.local', pattern: /^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/ }),
} as const;
