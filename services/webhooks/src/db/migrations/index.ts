import type { NamedMigration } from '@atelier/db';

/** The Postgres schema that holds every webhooks table and its migrations table. */
export const WEBHOOKS_SCHEMA = 'webhooks';

/**
 * Every webhooks migration, in order. Append only: never edit or reorder a released one. Classes
 * load on demand: the service's start-up schema check needs only the names.
 */
export const webhooksMigrations: readonly NamedMigration[] = [
  { name: '0001-webhooks-baseline', load: async () => (await import('./0001-webhooks-baseline.js')).WebhooksBaseline },
  { name: '0002-account-deletions', load: async () => (await import('./0002-account-deletions.js')).AccountDeletions },
];
