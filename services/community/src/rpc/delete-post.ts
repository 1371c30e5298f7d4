import type { communityV1 } from '@atelier/contracts';
import { NotFoundError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { requireUserId, requireUuid } from '@atelier/validation';
import type { CommunityContext } from '../community-context.js';
import { selectPost, updatePostDeleted } from '../db/post-sql.js';
import { toPostMessage } from './post-mapper.js';

type DeletePost = Handler<typeof communityV1.CommunityServiceService.deletePost>;

/**
 * Soft delete: the row stays (its idempotency key keeps answering replays) with status deleted.
 * Deleting again returns the deleted post; someone else's post is NOT_FOUND.
 */
export function deletePost({ pool }: CommunityContext): DeletePost {
  return async (request) => {
    const postId = requireUuid(request.postId, 'post_id');
    const authorUserId = requireUserId(request.authorUserId, 'author_user_id');
    const deleted = await updatePostDeleted(pool, postId, authorUserId);
    if (deleted) return { post: toPostMessage(deleted) };
    const existing = await selectPost(pool, postId);
    if (!existing || existing.author_user_id !== authorUserId) throw new NotFoundError('post');
    return { post: toPostMessage(existing) };
  };
}
