import { doc, int, optional, str, type VarSpec } from '@atelier/config';

/**
 * The NATS variables every service that talks to JetStream reads, spread into its config spec:
 * the servers, the stream prefix, and credentials — a user and password, or a token — kept out
 * of NATS_URL so that they can live in a Secret and never reach a log.
 */
export const natsConfigSpec = {
  NATS_URL: doc(
    str({ default: 'nats://127.0.0.1:4222' }),
    'NATS with JetStream; a comma-separated list of servers for a cluster (a client moves to another when its node goes)',
  ),
  NATS_STREAM_PREFIX: doc(
    str({ default: 'ATELIER', pattern: /^[A-Z][A-Z0-9_]{0,31}$/ }),
    'prefix of every stream, subject and consumer name (`<PREFIX>_JOBS`, `<prefix>.jobs.dispatch.interactive` …); the same in every service',
  ),
  NATS_USER: doc(optional(str()), 'NATS user, set with NATS_PASSWORD; or NATS_TOKEN, not both'),
  NATS_PASSWORD: doc(optional(str({ secret: true })), 'password of NATS_USER; never logged'),
  NATS_TOKEN: doc(optional(str({ secret: true })), 'NATS token, instead of a user and password; never logged'),
} as const;

const replicas = int({ default: 1, min: 1, max: 5 });

/** 1–5, with the advice an operator needs when the value is refused. */
const streamReplicas: VarSpec<number> = {
  ...replicas,
  describe: 'an integer in 1..5 (odd recommended: 1, 3 or 5)',
  parse(raw) {
    try {
      return replicas.parse(raw);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(
        `${reason}: the copies of each stream in the NATS cluster; odd numbers (1, 3, 5) keep a majority through a node's loss`,
      );
    }
  },
};

/**
 * What a service that declares JetStream streams reads beside natsConfigSpec: jobs, the workers
 * and media (the job streams) and the gateway (its rate-limit bucket). NATS_STREAM_REPLICAS is the
 * copies of each stream in a NATS cluster: 1 for a single server, 3 to survive one node's loss.
 */
export const natsStreamsConfigSpec = {
  NATS_STREAM_REPLICAS: doc(
    streamReplicas,
    "copies of each stream (and of the gateway's rate-limit bucket) in a NATS cluster: 3 survives one node's loss, 5 two; an existing stream is changed in place (a bucket that exists keeps its count); more than the cluster's JetStream servers is refused (`NATS_STREAM_REPLICAS_REFUSED`) and tried again every second",
  ),
} as const;

export interface NatsCredentials {
  NATS_USER?: string;
  NATS_PASSWORD?: string;
  NATS_TOKEN?: string;
}

/** A user needs a password and the reverse; a token excludes both. */
export function checkNatsCredentials(config: NatsCredentials): { variable: string; problem: string }[] {
  const problems: { variable: string; problem: string }[] = [];
  if (Boolean(config.NATS_USER) !== Boolean(config.NATS_PASSWORD)) {
    problems.push({
      variable: config.NATS_USER ? 'NATS_PASSWORD' : 'NATS_USER',
      problem: 'is required: NATS_USER and NATS_PASSWORD are set together',
    });
  }
  if (config.NATS_TOKEN && config.NATS_USER)
    problems.push({ variable: 'NATS_TOKEN', problem: 'excludes NATS_USER: use one way to log in' });
  return problems;
}
