import type { NamedMigration } from '@atelier/db';
import { MediaBaseline } from './0001-media-baseline.js';

/** Every media migration, in order. Append only: never edit or reorder a released one. */
export const mediaMigrations: readonly NamedMigration[] = [{ name: '0001-media-baseline', class: MediaBaseline }];
