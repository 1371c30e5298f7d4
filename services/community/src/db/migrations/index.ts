import type { NamedMigration } from '@atelier/db';
import { CommunityBaseline } from './0001-community-baseline.js';

/** Every community migration, in order. Append only: never edit or reorder a released one. */
export const communityMigrations: readonly NamedMigration[] = [{ name: '0001-community-baseline', class: CommunityBaseline }];
