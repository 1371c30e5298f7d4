/**
 * A service's part of deleting accounts, the shape jobs, media, community and webhooks share: the
 * `account_deletions` table (its migration's SQL; the entity is on `@atelier/account-deletion/entity`,
 * so that a service's process never loads the ORM), the progress record, the consumer of
 * AccountDeletedEvent and its configuration. A service brings what it deletes of a user, in its
 * own SQL (an AccountDeletionPart), and wires the consumer with followAccountDeletions.
 */
export {
  accountDeletionsTable,
  accountDeletionRequestsTable,
  accountDeletionsTableSql,
  type AccountDeletionsTable,
} from './account-deletions-table.js';
export {
  selectAccountDeletion,
  accountDeletionStarted,
  startAccountDeletion,
  countRemoved,
  completeAccountDeletion,
  type AccountDeletionRecord,
} from './account-deletion-sql.js';
export {
  accountDeletionOf,
  accountDeletionPartOf,
  getAccountDeletionPart,
  rowsOfUser,
  type AccountDeletionPart,
} from './account-deletion-part.js';
export { decodeAccountDeleted, encodeAccountDeleted, type AccountDeleted } from './account-deleted-event.js';
export {
  AccountDeletionConsumer,
  followAccountDeletions,
  type AccountDeletionConsumerOptions,
  type AccountDeletionLogger,
  type DeleteUserData,
  type FollowOptions,
} from './account-deletion-consumer.js';
export { accountDeletionConfigSpec, type AccountDeletionConfig } from './account-deletion-config.js';
