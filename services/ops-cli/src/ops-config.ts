import { userInfo } from 'node:os';
import { bool, hostPort, int, optional, str, type ConfigOf } from '@atelier/config';
import { grpcSecurityConfigSpec } from '@atelier/grpc';
import { natsConfigSpec } from '@atelier/nats';
import { DEFAULT_RELEASE_SELECTOR, NAMESPACE_PATTERN } from './release-labels.js';

/**
 * Who an operator is in the jobs event history (`operator:<id>`). The jobs service checks the
 * same rule (`USER_ID_PATTERN` of @atelier/validation) and stays the authority; checking here too
 * turns a typo into a configuration error before any call is made.
 */
export const OPERATOR_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:@|-]{0,127}$/;

/**
 * Environment variables of atelier-ops (README). The Kubernetes connection is not here: the
 * kubeconfig is found the standard way (KUBECONFIG, ~/.kube/config, or the pod's service
 * account) by @kubernetes/client-node, and `--context` picks a context in it.
 */
export const opsConfigSpec = {
  /** Namespace of the release, unless `--namespace` says otherwise. */
  ATELIER_NAMESPACE: str({ default: 'atelier', pattern: NAMESPACE_PATTERN }),
  /** Label selector of the release's Deployments, unless `--selector` says otherwise. */
  ATELIER_SELECTOR: str({ default: DEFAULT_RELEASE_SELECTOR, maxLength: 1000 }),
  /** The jobs gRPC API (its admin service); in a cluster, a port-forward of the jobs Service. */
  JOBS_ADDR: hostPort('127.0.0.1:50053'),
  /** The catalog gRPC API (`catalog list|enable|disable`); in a cluster, a port-forward of the catalog Service. */
  CATALOG_ADDR: hostPort('127.0.0.1:50051'),
  /**
   * The operator's certificate for the jobs admin and catalog APIs (identity `ops`, issued by the
   * platform's CA) and that CA; needed by the commands that call jobs or catalog only.
   */
  GRPC_TLS_CA_FILE: optional(str()),
  GRPC_TLS_CERT_FILE: optional(str()),
  GRPC_TLS_KEY_FILE: optional(str()),
  GRPC_TRUST_DOMAIN: grpcSecurityConfigSpec.GRPC_TRUST_DOMAIN,
  /** May carry credentials (`nats://user:pass@host:4222`): never echoed. */
  NATS_URL: str({ default: 'nats://127.0.0.1:4222', secret: true }),
  /** Must be the prefix jobs and the workers run with: stream and consumer names derive from it. */
  NATS_STREAM_PREFIX: natsConfigSpec.NATS_STREAM_PREFIX,
  /** NATS credentials, as the services take them (a user and password, or a token). */
  NATS_USER: natsConfigSpec.NATS_USER,
  NATS_PASSWORD: natsConfigSpec.NATS_PASSWORD,
  NATS_TOKEN: natsConfigSpec.NATS_TOKEN,
  /** Recorded as the replaying or cancelling operator; `--operator` overrides it; default `ops-cli:<login>`. */
  ATELIER_OPERATOR_ID: optional(str({ pattern: OPERATOR_ID_PATTERN })),
  /** Deadline of every call to Kubernetes, jobs and NATS. */
  ATELIER_OPS_TIMEOUT_MS: int({ default: 5_000, min: 100, max: 120_000 }),
  /** Prints the stack trace of an unexpected error. */
  ATELIER_OPS_DEBUG: bool(false),
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
