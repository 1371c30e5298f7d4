import { ModelPriceEntity } from './model-prices.entity.js';
import { ModelEntity } from './models.entity.js';
import { OperatorAuditEntity } from './operator-audit.entity.js';
import { StyleEntity } from './styles.entity.js';

export { ModelEntity, ModelPriceEntity, OperatorAuditEntity, StyleEntity };

/** Every table of schema catalog, as MikroORM entities. */
export const catalogEntities = [ModelEntity, ModelPriceEntity, StyleEntity, OperatorAuditEntity] as const;
