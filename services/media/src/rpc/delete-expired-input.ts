import { mediaV1 } from '@atelier/contracts';
import { UnavailableError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { requireUserId, requireUuid } from '@atelier/validation';
import type { MediaContext } from '../media-context.js';
import { deleteUnlessInUse, type DeleteOutcome } from './delete-unless-in-use.js';

type DeleteExpiredInput = Handler<typeof mediaV1.MediaServiceService.deleteExpiredInput>;

const { ExpiredInputOutcome } = mediaV1;
const OUTCOMES: Record<DeleteOutcome, mediaV1.ExpiredInputOutcome> = {
  deleted: ExpiredInputOutcome.DELETED,
  gone: ExpiredInputOutcome.GONE,
  in_use_by_job: ExpiredInputOutcome.IN_USE_BY_JOB,
  in_use_by_post: ExpiredInputOutcome.IN_USE_BY_POST,
};

/**
 * Retention's delete (jobs' pruner, docs/retention.md): an input image whose jobs all ended past
 * their retention goes as the owner's delete would take it — but only an input image (ai_input:
 * any other purpose answers GONE, outputs stay while the user keeps them), and something still
 * using it is an outcome, not an error: jobs records it and asks again later.
 */
export function deleteExpiredInput(context: MediaContext): DeleteExpiredInput {
  return async (request) => {
    const id = requireUuid(request.assetId, 'asset_id');
    const owner = requireUserId(request.ownerUserId, 'owner_user_id');
    if (!context.assetUsage)
      throw new UnavailableError('deleting assets is not configured on this media service (JOBS_ADDR, COMMUNITY_ADDR)');
    const outcome = await deleteUnlessInUse(context, context.assetUsage, id, owner, 'ai_input');
    return { outcome: OUTCOMES[outcome] };
  };
}
