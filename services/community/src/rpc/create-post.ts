import type { communityV1 } from '@atelier/contracts';
import { uuidv7 } from '@atelier/db';
import type { Handler } from '@atelier/grpc';
import { requireIdempotencyKey, requireUserId } from '@atelier/validation';
import type { CommunityContext } from '../community-context.js';
import { DEFAULT_POST_LIMITS } from '../domain/post-limits.js';
import { requireJobForCategory } from '../domain/generation-rules.js';
import { normaliseCreateCommand } from '../domain/post-command.js';
import { createPostHash } from '../domain/request-hash.js';
import { postOutboxEvents } from '../domain/product-events.js';
import { checkPostReferences } from '../peers/peer-validation.js';
import { toPostMessage } from './post-mapper.js';
import { findReplay, insertOrReplay } from './idempotent-insert.js';

type CreatePost = Handler<typeof communityV1.CommunityServiceService.createPost>;

/**
 * CreatePost with L1 idempotency as in jobs (SPEC §7): UNIQUE(author, key) plus the hash of the
 * canonical command. The order is: field rules, rules of the command alone, the replay (answered
 * from the stored post, so it does not depend on the peers of now: an image deleted since, jobs
 * down), then the peers, then one insert of the post with its media.
 */
export function createPost({ pool, peers, productEvents, postLimits = DEFAULT_POST_LIMITS }: CommunityContext): CreatePost {
  return async (request) => {
    const authorUserId = requireUserId(request.authorUserId, 'author_user_id');
    const idempotencyKey = requireIdempotencyKey(request.idempotencyKey);
    const command = normaliseCreateCommand(request);
    requireJobForCategory(command.category, command.generationJobId);
    const requestHash = createPostHash(command);

    const replay = await findReplay(pool, authorUserId, idempotencyKey, requestHash);
    if (replay) return { post: toPostMessage(replay.row), created: false };

    await checkPostReferences(peers, authorUserId, {
      mediaAssetIds: command.mediaAssetIds,
      mediaField: 'media_asset_ids',
      generationJobId: command.generationJobId,
    });
    const { row, created } = await insertOrReplay(
      pool,
      { id: uuidv7(), authorUserId, idempotencyKey, requestHash, ...command },
      postLimits,
      postOutboxEvents(productEvents, { created: true, oneTapDraft: false }),
    );
    return { post: toPostMessage(row), created };
  };
}
