import type { NamedMigration } from '@atelier/db';

/** The Postgres schema that holds every community table and its migrations table. */
export const COMMUNITY_SCHEMA = 'community';

/**
 * Every community migration, in order. Append only: never edit or reorder a released one. Classes load
 * on demand: the service's start-up schema check needs only the names.
 */
export const communityMigrations: readonly NamedMigration[] = [
  { name: '0001-community-baseline', load: async () => (await import('./0001-community-baseline.js')).CommunityBaseline },
  { name: '0002-author-handles', load: async () => (await import('./0002-author-handles.js')).AuthorHandles },
  { name: '0003-account-deletions', load: async () => (await import('./0003-account-deletions.js')).AccountDeletions },
  { name: '0004-outbox', load: async () => (await import('./0004-outbox.js')).Outbox },
];
