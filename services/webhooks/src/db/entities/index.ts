import { DeliveryAttemptEntity } from './delivery-attempts.entity.js';
import { DeliveryEntity } from './deliveries.entity.js';
import { EndpointEntity } from './endpoints.entity.js';

export { DeliveryAttemptEntity, DeliveryEntity, EndpointEntity };

/** Every table of schema webhooks, as MikroORM entities. */
export const webhooksEntities = [EndpointEntity, DeliveryEntity, DeliveryAttemptEntity] as const;
