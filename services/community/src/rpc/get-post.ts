import type { communityV1 } from '@atelier/contracts';
import { NotFoundError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { requireUserId, requireUuid } from '@atelier/validation';
import type { CommunityContext } from '../community-context.js';
import { findPost } from '../db/post-queries.js';

import { toPostMessage } from '../post-mapper.js';

type GetPost = Handler<typeof communityV1.CommunityServiceService.getPost>;

/** A published post to anyone, a draft to its author only; anything else is NOT_FOUND. */
export function getPost({ pool }: CommunityContext): GetPost {
  return async (request) => {
    const postId = requireUuid(request.postId, 'post_id');
    const callerUserId = requireUserId(request.callerUserId, 'caller_user_id');
    const row = await findPost(pool, postId);
    const visible = row?.status === 'published' || (row?.status === 'draft' && row.author_user_id === callerUserId);
    if (!row || !visible) throw new NotFoundError('post');
    return { post: toPostMessage(row) };
  };
}
