import { hostname } from 'node:os';
import type { Logger } from '@atelier/logging';
import { Counter, Gauge, type Registry } from '@atelier/metrics';
import { openNatsLink, WindowCounters, windowCountersBucket, type NatsCredentials, type NatsLink } from '@atelier/nats';
import { RateLimiter, type LimitKind, type RateLimitSettings } from './rate-limiter.js';

export interface SharedRateLimiterOptions {
  settings: RateLimitSettings;
  nats: { servers: string; streamPrefix: string; streamReplicas: number; credentials: NatsCredentials; timeoutMs: number };
  logger: Logger;
  registry: Registry;
}

/** A fail-open warning at most this often: during an outage every request would log one. */
const WARN_EVERY_MS = 30_000;

export interface SharedRateLimiter {
  check: RateLimiter['check'];
  /** Counts a refusal (for the metric). */
  refused(kind: LimitKind): void;
  close(): Promise<void>;
}

/**
 * The gateway's rate limiter on the JetStream KV bucket every replica shares. The NATS link opens
 * without waiting (the gateway starts and serves with NATS down); until the bucket is open, and
 * whenever the link is down or the store fails, requests are let through, counted in
 * atelier_gateway_rate_limit_fail_open_total and logged (at most every 30 s).
 */
export function startSharedRateLimiter(options: SharedRateLimiterOptions): SharedRateLimiter {
  const failOpen = new Counter({
    name: 'atelier_gateway_rate_limit_fail_open_total',
    help: 'Requests let through unchecked because the rate-limit store (NATS KV) was down or failed',
    labelNames: ['reason'] as const,
    registers: [options.registry],
  });
  const limited = new Counter({
    name: 'atelier_gateway_rate_limited_total',
    help: 'Requests refused by the rate limit (429), by what was counted',
    labelNames: ['kind'] as const,
    registers: [options.registry],
  });
  const storeUp = new Gauge({
    name: 'atelier_gateway_rate_limit_store_up',
    help: '1 while the rate-limit store (NATS KV) is connected and its bucket open; 0 while requests go unchecked',
    registers: [options.registry],
  });
  let counters: WindowCounters | undefined;
  const link: NatsLink = openNatsLink({
    servers: options.nats.servers,
    name: `gateway@${hostname()}`,
    credentials: options.nats.credentials,
    logger: options.logger,
    onConnected: async (nc) => {
      counters = await WindowCounters.open(nc, {
        bucket: windowCountersBucket(options.nats.streamPrefix),
        maxAgeMs: 2 * options.settings.windowMs,
        replicas: options.nats.streamReplicas,
        timeoutMs: options.nats.timeoutMs,
      });
    },
    onStateChange: (up) => storeUp.set(up ? 1 : 0),
  });
  let lastWarning = 0;
  const limiter = new RateLimiter({
    settings: options.settings,
    counters: () => (link.up() ? counters : undefined),
    onFailOpen: (reason, error) => {
      failOpen.inc({ reason });
      if (Date.now() - lastWarning < WARN_EVERY_MS) return;
      lastWarning = Date.now();
      options.logger.warn({ reason, err: error }, 'rate-limit store unavailable: letting requests through unchecked');
    },
  });
  return {
    check: (kind, id) => limiter.check(kind, id),
    refused: (kind) => limited.inc({ kind }),
    close: () => link.close(),
  };
}
