import type { NamedMigration } from '@atelier/db';

/** The Postgres schema that holds every media table and its migrations table. */
export const MEDIA_SCHEMA = 'media';

/**
 * Every media migration, in order. Append only: never edit or reorder a released one. Classes load
 * on demand: the service's start-up schema check needs only the names.
 */
export const mediaMigrations: readonly NamedMigration[] = [
  { name: '0001-media-baseline', load: async () => (await import('./0001-media-baseline.js')).MediaBaseline },
  { name: '0002-ai-output-by-job', load: async () => (await import('./0002-ai-output-by-job.js')).AiOutputByJob },
  {
    name: '0003-owner-gallery-and-deleting',
    load: async () => (await import('./0003-owner-gallery-and-deleting.js')).OwnerGalleryAndDeleting,
  },
  { name: '0004-account-deletions', load: async () => (await import('./0004-account-deletions.js')).AccountDeletions },
  { name: '0005-outbox', load: async () => (await import('./0005-outbox.js')).Outbox },
];
