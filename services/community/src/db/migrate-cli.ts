// `npm run migrate -w @atelier/community`: applies pending migrations to schema community and exits.
import { runMigrateCli } from '@atelier/orm';
import { COMMUNITY_SCHEMA, createCommunityOrm } from './community-orm.js';

await runMigrateCli('community', COMMUNITY_SCHEMA, createCommunityOrm);
