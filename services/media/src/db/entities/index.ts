import { AccountDeletionEntity } from './account-deletions.entity.js';
import { AssetEntity } from './assets.entity.js';
import { OutboxEntity } from './outbox.entity.js';

export { AccountDeletionEntity, AssetEntity, OutboxEntity };

/** Every table of schema media, as MikroORM entities. */
export const mediaEntities = [AssetEntity, AccountDeletionEntity, OutboxEntity] as const;
