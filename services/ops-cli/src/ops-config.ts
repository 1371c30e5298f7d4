import { userInfo } from 'node:os';
import { bool, doc, hostPort, int, optional, str, type ConfigOf } from '@atelier/config';
import { grpcSecurityConfigSpec } from '@atelier/grpc';
import { natsConfigSpec } from '@atelier/nats';
import { defaultAddressOf } from '@atelier/platform';
import { DEFAULT_RELEASE_SELECTOR, NAMESPACE_PATTERN } from './release-labels.js';

/**
 * Who an operator is in the jobs event history (`operator:<id>`). The jobs service checks the
 * same rule (`USER_ID_PATTERN` of @atelier/validation) and stays the authority; checking here too
 * turns a typo into a configuration error before any call is made.
 */
export const OPERATOR_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:@|-]{0,127}$/;

/**
 * Environment variables of atelier-ops (docs/configuration.md is generated from this spec). The
 * Kubernetes connection is not here: the kubeconfig is found the standard way (KUBECONFIG,
 * ~/.kube/config, or the pod's service account) by @kubernetes/client-node, and `--context` picks a
 * context in it.
 */
export const opsConfigSpec = {
  ATELIER_NAMESPACE: doc(
    str({ default: 'atelier', pattern: NAMESPACE_PATTERN }),
    'namespace of the release, unless `--namespace` says otherwise',
  ),
  ATELIER_SELECTOR: doc(
    str({ default: DEFAULT_RELEASE_SELECTOR, maxLength: 1000 }),
    "label selector of the release's Deployments, unless `--selector` says otherwise",
  ),
  JOBS_ADDR: doc(
    hostPort(defaultAddressOf('jobs')),
    'the jobs gRPC API (its admin service); in a cluster, a port-forward of `svc/<release>-jobs`',
  ),
  CATALOG_ADDR: doc(
    hostPort(defaultAddressOf('catalog')),
    'the catalog gRPC API (`catalog list|enable|disable`); in a cluster, a port-forward of `svc/<release>-catalog`',
  ),
  GRPC_TLS_CA_FILE: doc(optional(str()), "PEM file of the platform's CA; needed by the commands that call jobs or catalog only"),
  GRPC_TLS_CERT_FILE: doc(optional(str()), "PEM file of the operator's certificate (identity `ops`, issued by the platform's CA)"),
  GRPC_TLS_KEY_FILE: doc(optional(str()), "PEM file of the operator's private key"),
  GRPC_TRUST_DOMAIN: grpcSecurityConfigSpec.GRPC_TRUST_DOMAIN,
  NATS_URL: doc(
    str({ default: 'nats://127.0.0.1:4222', secret: true }),
    "NATS, for the consumers' pending counts; may carry credentials (`nats://user:pass@host:4222`), never echoed",
  ),
  NATS_STREAM_PREFIX: doc(
    natsConfigSpec.NATS_STREAM_PREFIX,
    'must be the prefix jobs and the workers run with: stream and consumer names derive from it',
  ),
  NATS_USER: natsConfigSpec.NATS_USER,
  NATS_PASSWORD: natsConfigSpec.NATS_PASSWORD,
  NATS_TOKEN: natsConfigSpec.NATS_TOKEN,
  ATELIER_OPERATOR_ID: doc(
    optional(str({ pattern: OPERATOR_ID_PATTERN })),
    'recorded as the replaying or cancelling operator; `--operator` overrides it',
    '`ops-cli:<login>`',
  ),
  ATELIER_OPS_TIMEOUT_MS: doc(int({ default: 5_000, min: 100, max: 120_000 }), 'deadline of every call to Kubernetes, jobs and NATS'),
  ATELIER_OPS_DEBUG: doc(bool(false), 'print the stack trace of an unexpected error'),
} as const;

export type OpsConfig = ConfigOf<typeof opsConfigSpec>;

/** `ops-cli:<login name>`, made to fit OPERATOR_ID_PATTERN whatever the login looks like. */
export function defaultOperatorId(env: NodeJS.ProcessEnv): string {
  let login: string | undefined;
  try {
    login = userInfo().username;
  } catch {
    // A container user without a passwd entry has no name; the environment may still know one.
    login = env.USER ?? env.LOGNAME;
  }
  const cleaned = (login ?? '').replace(/[^A-Za-z0-9._@|-]/g, '-').slice(0, 100);
  return `ops-cli:${cleaned || 'unknown'}`;
}
