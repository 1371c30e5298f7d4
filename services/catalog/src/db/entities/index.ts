import { ModelEntity } from './models.entity.js';
import { StyleEntity } from './styles.entity.js';

export { ModelEntity, StyleEntity };

/** Every table of schema catalog, as MikroORM entities. */
export const catalogEntities = [ModelEntity, StyleEntity] as const;
