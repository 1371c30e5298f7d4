import { defineEntity, p } from '@atelier/orm';
import { MAX_USER_ID_LENGTH, MAX_WEBHOOK_DESCRIPTION_LENGTH, MAX_WEBHOOK_URL_LENGTH } from '@atelier/validation';

/** webhooks.endpoints: a user's target URL, the event types it wants (none: all) and its signing secret. */
export const EndpointEntity = defineEntity({
  name: 'Endpoint',
  tableName: 'endpoints',
  properties: {
    id: p.uuid().primary(),
    userId: p.string().length(MAX_USER_ID_LENGTH),
    url: p.string().length(MAX_WEBHOOK_URL_LENGTH),
    eventTypes: p.array().columnType('text[]').defaultRaw(`'{}'`),
    description: p.string().length(MAX_WEBHOOK_DESCRIPTION_LENGTH).default(''),
    secret: p.string().length(128),
    createdAt: p.datetime(3).defaultRaw('now()'),
  },
  indexes: [
    {
      name: 'endpoints_user_created_idx',
      expression: 'CREATE INDEX endpoints_user_created_idx ON webhooks.endpoints USING btree (user_id, created_at DESC)',
    },
  ],
  checks: [
    { name: 'endpoints_user_present', expression: `user_id <> ''` },
    { name: 'endpoints_url_http', expression: `url ~ '^https?://'` },
    { name: 'endpoints_secret_prefixed', expression: `left(secret, 6) = 'whsec_'` },
  ],
});
