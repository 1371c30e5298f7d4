import { AccountDeletionEntity } from './account-deletions.entity.js';
import { DeliveryAttemptEntity } from './delivery-attempts.entity.js';
import { DeliveryEntity } from './deliveries.entity.js';
import { EndpointEntity } from './endpoints.entity.js';

export { AccountDeletionEntity, DeliveryAttemptEntity, DeliveryEntity, EndpointEntity };

/** Every table of schema webhooks, as MikroORM entities. */
export const webhooksEntities = [EndpointEntity, DeliveryEntity, DeliveryAttemptEntity, AccountDeletionEntity] as const;
