import { createOrm, migrate, type MikroORM } from '@atelier/orm';
import { webhooksEntities } from './entities/index.js';
import { WEBHOOKS_SCHEMA, webhooksMigrations } from './migrations/index.js';

export { WEBHOOKS_SCHEMA };

/**
 * MikroORM owns the webhooks schema's configuration, migrations and entities (its description in
 * code, checked against the migrations). The service's own SQL runs on a plain pg pool, as in jobs
 * and community: the claim and the fan-out are single statements written out.
 */
export function createWebhooksOrm(databaseUrl: string): Promise<MikroORM> {
  return createOrm({ databaseUrl, schema: WEBHOOKS_SCHEMA, entities: webhooksEntities, migrations: webhooksMigrations, poolMax: 2 });
}

export function migrateWebhooks(orm: MikroORM, databaseUrl: string): Promise<string[]> {
  return migrate(orm, databaseUrl, WEBHOOKS_SCHEMA);
}
