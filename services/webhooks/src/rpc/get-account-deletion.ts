import { getAccountDeletionPart } from '@atelier/account-deletion';
import type { webhooksV1 } from '@atelier/contracts';
import type { Handler } from '@atelier/grpc';
import { WEBHOOKS_ACCOUNT_DELETIONS } from '../db/account-deletion-sql.js';
import type { WebhooksContext } from '../webhooks-context.js';

type GetAccountDeletion = Handler<typeof webhooksV1.WebhooksServiceService.getAccountDeletion>;

/** Webhooks' part of deleting the user's account: not started, working, or done (with the endpoints removed). */
export function getAccountDeletion({ pool }: WebhooksContext): GetAccountDeletion {
  return getAccountDeletionPart(pool, WEBHOOKS_ACCOUNT_DELETIONS);
}
