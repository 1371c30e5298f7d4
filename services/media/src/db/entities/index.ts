import { accountDeletionEntity } from '@atelier/account-deletion/entity';
import { MEDIA_ACCOUNT_DELETIONS } from '../account-deletion-sql.js';
import { AssetEntity } from './assets.entity.js';
import { OutboxEntity } from './outbox.entity.js';

/** media.account_deletions: the kit's table (@atelier/account-deletion). */
const AccountDeletionEntity = accountDeletionEntity(MEDIA_ACCOUNT_DELETIONS);

export { AccountDeletionEntity, AssetEntity, OutboxEntity };

/** Every table of schema media, as MikroORM entities. */
export const mediaEntities = [AssetEntity, AccountDeletionEntity, OutboxEntity] as const;
