import type { NamedMigration } from '@atelier/db';
import { JobsBaseline } from './0001-jobs-baseline.js';
import { ProviderRequestGeneration } from './0002-provider-request-generation.js';

/** Every jobs migration, in order. Append only: never edit or reorder a released one. */
export const jobsMigrations: readonly NamedMigration[] = [
  { name: '0001-jobs-baseline', class: JobsBaseline },
  { name: '0002-provider-request-generation', class: ProviderRequestGeneration },
];
