import type { NamedMigration } from '@atelier/db';

/** The Postgres schema that holds every catalog table and its migrations table. */
export const CATALOG_SCHEMA = 'catalog';

/**
 * Every catalog migration, in order. Append only: never edit or reorder a released one. Classes load
 * on demand: the service's start-up schema check needs only the names.
 */
export const catalogMigrations: readonly NamedMigration[] = [
  { name: '0001-catalog-baseline', load: async () => (await import('./0001-catalog-baseline.js')).CatalogBaseline },
  { name: '0002-catalog-seed', load: async () => (await import('./0002-catalog-seed.js')).CatalogSeed },
  {
    name: '0003-catalog-localized-names',
    load: async () => (await import('./0003-catalog-localized-names.js')).CatalogLocalizedNames,
  },
  { name: '0004-catalog-app-seed', load: async () => (await import('./0004-catalog-app-seed.js')).CatalogAppSeed },
  {
    name: '0005-catalog-model-prices',
    load: async () => (await import('./0005-catalog-model-prices.js')).CatalogModelPrices,
  },
  { name: '0006-model-credential-modes', load: async () => (await import('./0006-model-credential-modes.js')).ModelCredentialModes },
  { name: '0007-operator-audit', load: async () => (await import('./0007-operator-audit.js')).OperatorAudit },
];
