import { accountDeletionEntity } from '@atelier/account-deletion/entity';
import { WEBHOOKS_ACCOUNT_DELETIONS } from '../account-deletion-sql.js';
import { DeliveryAttemptEntity } from './delivery-attempts.entity.js';
import { DeliveryEntity } from './deliveries.entity.js';
import { EndpointEntity } from './endpoints.entity.js';

/** webhooks.account_deletions: the kit's table (@atelier/account-deletion). */
const AccountDeletionEntity = accountDeletionEntity(WEBHOOKS_ACCOUNT_DELETIONS);

export { AccountDeletionEntity, DeliveryAttemptEntity, DeliveryEntity, EndpointEntity };

/** Every table of schema webhooks, as MikroORM entities. */
export const webhooksEntities = [EndpointEntity, DeliveryEntity, DeliveryAttemptEntity, AccountDeletionEntity] as const;
