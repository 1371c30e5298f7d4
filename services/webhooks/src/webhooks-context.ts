import type { SqlPool } from '@atelier/db';
import type { Logger } from '@atelier/logging';
import type { ResolveAll } from './ssrf/target-check.js';

/** What the webhooks RPC handlers depend on. */
export interface WebhooksContext {
  pool: SqlPool;
  logger: Logger;
  /** Hosts that may be called whatever they resolve to, over http too (WEBHOOK_ALLOWED_HOSTS). */
  allowedHosts: ReadonlySet<string>;
  endpointsPerUser: number;
  /** DNS for the target check (tests). */
  resolve?: ResolveAll;
  /** Told when a replay made a delivery due. */
  onDue?: () => void;
}
