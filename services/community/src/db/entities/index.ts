import { AccountDeletionEntity } from './account-deletions.entity.js';
import { AuthorEntity } from './authors.entity.js';
import { PostMediaEntity } from './post-media.entity.js';
import { PostEntity } from './posts.entity.js';
import { OutboxEntity } from './outbox.entity.js';

export { AccountDeletionEntity, AuthorEntity, OutboxEntity, PostEntity, PostMediaEntity };

/** Every table of schema community, as MikroORM entities. */
export const communityEntities = [PostEntity, PostMediaEntity, AuthorEntity, AccountDeletionEntity, OutboxEntity] as const;
