import { accountDeletionEntity } from '@atelier/account-deletion/entity';
import { COMMUNITY_ACCOUNT_DELETIONS } from '../account-deletion-sql.js';
import { AuthorEntity } from './authors.entity.js';
import { PostMediaEntity } from './post-media.entity.js';
import { PostEntity } from './posts.entity.js';
import { OutboxEntity } from './outbox.entity.js';

/** community.account_deletions: the kit's table (@atelier/account-deletion). */
const AccountDeletionEntity = accountDeletionEntity(COMMUNITY_ACCOUNT_DELETIONS);

export { AccountDeletionEntity, AuthorEntity, OutboxEntity, PostEntity, PostMediaEntity };

/** Every table of schema community, as MikroORM entities. */
export const communityEntities = [PostEntity, PostMediaEntity, AuthorEntity, AccountDeletionEntity, OutboxEntity] as const;
