import type { SqlPool } from '@atelier/db';
import type { Logger } from '@atelier/logging';
import type { Peers } from './peer-validation.js';

/** What the community RPC handlers depend on. */
export interface CommunityContext {
  pool: SqlPool;
  peers: Peers;
  logger: Logger;
}
