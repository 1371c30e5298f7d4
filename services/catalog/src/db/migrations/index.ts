import type { NamedMigration } from '@atelier/db';
import { CatalogBaseline } from './0001-catalog-baseline.js';
import { CatalogSeed } from './0002-catalog-seed.js';

/** Every catalog migration, in order. Append only: never edit or reorder a released one. */
export const catalogMigrations: readonly NamedMigration[] = [
  { name: '0001-catalog-baseline', class: CatalogBaseline },
  { name: '0002-catalog-seed', class: CatalogSeed },
];
