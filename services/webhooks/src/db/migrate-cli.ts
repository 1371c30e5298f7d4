// `npm run migrate -w @atelier/webhooks`: applies pending migrations to schema webhooks and exits.
import { runMigrateCli } from '@atelier/orm';
import { WEBHOOKS_SCHEMA, createWebhooksOrm } from './webhooks-orm.js';

await runMigrateCli('webhooks', WEBHOOKS_SCHEMA, createWebhooksOrm);
