import type { communityV1 } from '@atelier/contracts';
import { NotFoundError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { requireUserId, requireUuid } from '@atelier/validation';
import type { CommunityContext } from '../community-context.js';
import { selectPost, updatePostAndMedia } from '../db/post-sql.js';
import type { PostRow } from '../db/post-row.js';
import { normaliseUpdateFields, planUpdate, versionConflict, type PostState } from '../domain/post-update.js';
import { checkPostReferences } from '../peers/peer-validation.js';
import { postOutboxEvents } from '../domain/product-events.js';
import { toPostMessage } from './post-mapper.js';

type UpdatePost = Handler<typeof communityV1.CommunityServiceService.updatePost>;

/** The author's live post; anyone else's, or a deleted one, does not exist for them. */
function ownLivePost(row: PostRow | null, authorUserId: string): PostRow {
  if (!row || row.author_user_id !== authorUserId || row.status === 'deleted') throw new NotFoundError('post');
  return row;
}

const stateOf = (row: PostRow): PostState => ({
  title: row.title,
  content: row.content,
  category: row.category,
  status: row.status,
  petId: row.pet_id,
  generationJobId: row.generation_job_id,
  mediaAssetIds: row.media_asset_ids,
  version: row.version,
});

/**
 * Optimistic concurrency on `version` (SPEC §7): the change is planned from the version the
 * author named and written by one conditional statement on (id, author, version, live), so of
 * two updates based on one version exactly one wins and the other is ABORTED VERSION_CONFLICT.
 * The post afterwards must keep every rule: replaced media are checked with media like at
 * create, and a post with a generation job must keep the job's output among them. A request
 * that changes nothing returns the post as it is, without a new version.
 */
export function updatePost({ pool, peers, productEvents }: CommunityContext): UpdatePost {
  return async (request) => {
    const postId = requireUuid(request.postId, 'post_id');
    const authorUserId = requireUserId(request.authorUserId, 'author_user_id');
    const fields = normaliseUpdateFields(request);

    const current = ownLivePost(await selectPost(pool, postId), authorUserId);
    const plan = planUpdate(stateOf(current), fields);
    if (!plan.changes) return { post: toPostMessage(current) };
    if (plan.mediaAssetIds !== null) {
      await checkPostReferences(peers, authorUserId, {
        mediaAssetIds: plan.mediaAssetIds,
        mediaField: 'media.asset_ids',
        generationJobId: current.generation_job_id,
      });
    }

    // The write applies only at the version `current` was read at, so `current` is what it changed.
    const updated = await updatePostAndMedia(
      pool,
      {
        id: postId,
        authorUserId,
        expectedVersion: fields.expectedVersion,
        title: plan.title,
        content: plan.content,
        category: plan.category,
        petId: plan.petId,
        status: plan.status,
        mediaAssetIds: plan.mediaAssetIds,
      },
      postOutboxEvents(productEvents, { created: false, statusBefore: current.status }),
    );
    if (updated) return { post: toPostMessage(updated) };
    // Another change (or a delete) committed since the post was read: explain which.
    const latest = ownLivePost(await selectPost(pool, postId), authorUserId);
    throw versionConflict(latest.version, fields.expectedVersion);
  };
}
