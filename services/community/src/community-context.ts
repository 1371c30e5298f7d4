import type { SqlPool } from '@atelier/db';
import type { Logger } from '@atelier/logging';
import type { PostLimits } from './domain/post-limits.js';
import type { Peers } from './peers/peer-validation.js';

/** What the community RPC handlers depend on. */
export interface CommunityContext {
  pool: SqlPool;
  peers: Peers;
  logger: Logger;
  /** The per-author limit on new posts; DEFAULT_POST_LIMITS when absent. */
  postLimits?: PostLimits;
}
