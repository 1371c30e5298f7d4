import type { webhooksV1 } from '@atelier/contracts';
import { inTransaction, uuidv7 } from '@atelier/db';
import { ResourceExhaustedError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { MAX_WEBHOOK_DESCRIPTION_LENGTH, requireText, requireUserId } from '@atelier/validation';
import { insertEndpointWithinLimit } from '../db/endpoint-sql.js';
import { requireEndpointUrl, requireEventTypes } from '../domain/endpoint-rules.js';
import { newEndpointSecret } from '../domain/signature.js';
import { checkTarget } from '../ssrf/target-check.js';
import type { WebhooksContext } from '../webhooks-context.js';
import { toEndpointMessage } from './webhook-mapper.js';

type CreateEndpoint = Handler<typeof webhooksV1.WebhooksServiceService.createEndpoint>;

/** Registers an endpoint once its URL passes the rules and the target check; the secret is answered here only. */
export function createEndpoint(context: WebhooksContext): CreateEndpoint {
  return async (request) => {
    const userId = requireUserId(request.userId, 'user_id');
    const url = requireEndpointUrl(request.url, context.allowedHosts);
    const eventTypes = requireEventTypes(request.eventTypes);
    const description = requireText(request.description, 'description', MAX_WEBHOOK_DESCRIPTION_LENGTH, { allowEmpty: true });
    await checkTarget(url, context.allowedHosts, context.resolve);
    const secret = newEndpointSecret();
    const row = await inTransaction(context.pool, (client) =>
      insertEndpointWithinLimit(client, { id: uuidv7(), userId, url: url.href, eventTypes, description, secret }, context.endpointsPerUser),
    );
    if (!row) {
      throw new ResourceExhaustedError(
        'WEBHOOK_ENDPOINT_LIMIT',
        `a user may register at most ${context.endpointsPerUser} webhook endpoints; delete one first`,
        0,
      );
    }
    context.logger.info({ endpointId: row.id, userId, host: url.host }, 'webhook endpoint registered');
    return { endpoint: toEndpointMessage(row), secret };
  };
}
