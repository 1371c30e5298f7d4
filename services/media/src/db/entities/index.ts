import { AssetEntity } from './assets.entity.js';

export { AssetEntity };

/** Every table of schema media, as MikroORM entities. */
export const mediaEntities = [AssetEntity] as const;
