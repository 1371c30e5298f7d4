import { AccountDeletionEntity } from './account-deletions.entity.js';
import { AssetEntity } from './assets.entity.js';

export { AccountDeletionEntity, AssetEntity };

/** Every table of schema media, as MikroORM entities. */
export const mediaEntities = [AssetEntity, AccountDeletionEntity] as const;
