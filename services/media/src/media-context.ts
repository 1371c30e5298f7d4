import type { MikroORM } from '@atelier/db';
import type { Logger } from '@atelier/logging';
import type { ObjectStore } from './storage/object-store.js';

/** What the media RPC handlers depend on. Each call forks its own EntityManager. */
export interface MediaContext {
  orm: MikroORM;
  store: ObjectStore;
  logger: Logger;
  uploadUrlTtlSeconds: number;
  downloadUrlTtlSeconds: number;
}
