import { ModelPriceEntity } from './model-prices.entity.js';
import { ModelEntity } from './models.entity.js';
import { StyleEntity } from './styles.entity.js';

export { ModelEntity, ModelPriceEntity, StyleEntity };

/** Every table of schema catalog, as MikroORM entities. */
export const catalogEntities = [ModelEntity, ModelPriceEntity, StyleEntity] as const;
