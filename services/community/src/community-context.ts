import type { SqlPool } from '@atelier/db';
import type { Logger } from '@atelier/logging';
import type { ProductEvents } from '@atelier/outbox';
import type { PostLimits } from './domain/post-limits.js';
import type { Peers } from './peers/peer-validation.js';

/** What the community RPC handlers depend on. */
export interface CommunityContext {
  pool: SqlPool;
  peers: Peers;
  logger: Logger;
  /** The product events community writes to its outbox (creation_draft_created, creation_post_published). */
  productEvents: ProductEvents;
  /** The per-author limit on new posts; DEFAULT_POST_LIMITS when absent. */
  postLimits?: PostLimits;
}
