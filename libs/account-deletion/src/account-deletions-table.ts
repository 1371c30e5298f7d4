/**
 * `<schema>.account_deletions`, the progress record every service holding a user's data keeps of
 * its part of deleting their account: one row per user, who asked (deletion_id), since when, how
 * much is gone and when all of it was. user_id is all that is kept of the user: it refuses what
 * they would still send.
 *
 * Two kinds of one table. A service that takes its part when the AccountDeletedEvent reaches it
 * (media, community, webhooks) writes the row then: started_at, completed_at, removed. Jobs writes
 * the request itself, with the event in its outbox: requested_at, its deletion_id unique (the
 * event's id), and its own part beside it (jobs_completed_at, jobs_removed).
 */
export interface AccountDeletionsTable {
  /** The service's Postgres schema. */
  readonly schema: string;
  /** 'event': the row starts the service's part; 'request': the row is the request (jobs). */
  readonly startedBy: 'event' | 'request';
  readonly columns: {
    /** When the part started (the request's time where the row is the request). */
    readonly startedAt: string;
    readonly completedAt: string;
    readonly removed: string;
  };
}

/** The table of a service whose part starts with the event (media, community, webhooks). */
export function accountDeletionsTable(schema: string): AccountDeletionsTable {
  return { schema, startedBy: 'event', columns: { startedAt: 'started_at', completedAt: 'completed_at', removed: 'removed' } };
}

/** The table of the service that takes the requests (jobs): `part` prefixes its own part's columns. */
export function accountDeletionRequestsTable(schema: string, part: string): AccountDeletionsTable {
  return {
    schema,
    startedBy: 'request',
    columns: { startedAt: 'requested_at', completedAt: `${part}_completed_at`, removed: `${part}_removed` },
  };
}

/** The name of the CHECK that keeps the removed count from going negative. */
export const removedCheckName = (table: AccountDeletionsTable) => `account_deletions_${table.columns.removed}_positive`;

/** The UNIQUE constraint of a request's deletion_id (jobs'). */
export const DELETION_ID_KEY = 'account_deletions_deletion_id_key';

/**
 * The CREATE TABLE of a service's migration, as the released migrations wrote it to the letter
 * (jobs 0011, media 0004, community 0003, webhooks 0002): databases have run them, so this text
 * stays as it is. The user id's 128 is history too, not the live limit (MAX_USER_ID_LENGTH, which
 * the entities tests hold it to).
 */
export function accountDeletionsTableSql(table: AccountDeletionsTable): string {
  const { startedAt, completedAt, removed } = table.columns;
  const deletionId = table.startedBy === 'request' ? `NOT NULL CONSTRAINT ${DELETION_ID_KEY} UNIQUE` : 'NOT NULL';
  const columns: [name: string, type: string, constraints?: string][] = [
    ['user_id', 'varchar(128)', 'PRIMARY KEY'],
    ['deletion_id', 'uuid', deletionId],
    [startedAt, 'timestamptz', 'NOT NULL DEFAULT now()'],
    [completedAt, 'timestamptz'],
    [removed, 'integer', `NOT NULL DEFAULT 0 CONSTRAINT ${removedCheckName(table)} CHECK (${removed} >= 0)`],
  ];
  const nameWidth = Math.max(...columns.map(([name]) => name.length));
  const typeWidth = Math.max(...columns.map(([, type]) => type.length));
  const lines = columns.map(([name, type, constraints]) =>
    constraints === undefined ? `${name.padEnd(nameWidth)} ${type}` : `${name.padEnd(nameWidth)} ${type.padEnd(typeWidth)} ${constraints}`,
  );
  return `
      CREATE TABLE ${table.schema}.account_deletions (
        ${lines.join(',\n        ')}
      )`;
}
