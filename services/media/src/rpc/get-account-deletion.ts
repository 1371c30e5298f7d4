import { getAccountDeletionPart } from '@atelier/account-deletion';
import type { mediaV1 } from '@atelier/contracts';
import type { Handler } from '@atelier/grpc';
import { MEDIA_ACCOUNT_DELETIONS } from '../db/account-deletion-sql.js';
import type { MediaContext } from '../media-context.js';

type GetAccountDeletion = Handler<typeof mediaV1.MediaServiceService.getAccountDeletion>;

/** Media's part of deleting the user's account: not started, working, or done (with the assets removed). */
export function getAccountDeletion({ pool }: MediaContext): GetAccountDeletion {
  return getAccountDeletionPart(pool, MEDIA_ACCOUNT_DELETIONS);
}
