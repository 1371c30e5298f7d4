import type { communityV1 } from '@atelier/contracts';
import { NotFoundError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { requireUserId, requireUuid } from '@atelier/validation';
import type { CommunityContext } from '../community-context.js';
import { selectPost } from '../db/post-sql.js';

import { toPostMessage } from './post-mapper.js';

type GetPost = Handler<typeof communityV1.CommunityServiceService.getPost>;

/** A published post to anyone, a draft to its author only; anything else is NOT_FOUND. */
export function getPost({ pool }: CommunityContext): GetPost {
  return async (request) => {
    const postId = requireUuid(request.postId, 'post_id');
    const callerUserId = requireUserId(request.callerUserId, 'caller_user_id');
    const row = await selectPost(pool, postId);
    const visible = row?.status === 'published' || (row?.status === 'draft' && row.author_user_id === callerUserId);
    if (!row || !visible) throw new NotFoundError('post');
    return { post: toPostMessage(row) };
  };
}
