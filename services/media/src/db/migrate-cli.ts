// `npm run migrate -w @atelier/media`: applies pending migrations to schema media and exits.
import { runMigrateCli } from '@atelier/orm';
import { MEDIA_SCHEMA, createMediaOrm } from './media-orm.js';

await runMigrateCli('media', MEDIA_SCHEMA, (url) => createMediaOrm(url, 2));
