/**
 * The MikroORM entity of a service's account_deletions table, on an entry point of its own
 * (`@atelier/account-deletion/entity`): only migration runs and tests load the ORM, never a
 * service's process through the kit's main entry.
 */
import { defineEntity, p } from '@atelier/orm';
import { MAX_USER_ID_LENGTH } from '@atelier/validation';
import { DELETION_ID_KEY, removedCheckName, type AccountDeletionsTable } from './account-deletions-table.js';

const camel = (column: string) => column.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());

/**
 * The table as an entity, a new one per call: each service's ORM discovers its own (MikroORM
 * writes its metadata into the schema it is given).
 */
export function accountDeletionEntity(table: AccountDeletionsTable) {
  const { startedAt, completedAt, removed } = table.columns;
  return defineEntity({
    name: 'AccountDeletion',
    tableName: 'account_deletions',
    properties: {
      userId: p.string().length(MAX_USER_ID_LENGTH).primary(),
      deletionId: table.startedBy === 'request' ? p.uuid().unique(DELETION_ID_KEY) : p.uuid(),
      [camel(startedAt)]: p.datetime().defaultRaw('now()'),
      [camel(completedAt)]: p.datetime().nullable(),
      [camel(removed)]: p.integer().default(0),
    },
    checks: [{ name: removedCheckName(table), expression: `${removed} >= 0` }],
  });
}
