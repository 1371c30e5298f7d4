import { communityV1 } from '@atelier/contracts';
import { decodeListingPageToken, encodeListingPageToken, pageSize } from '@atelier/encoding';
import type { Handler } from '@atelier/grpc';
import { requireUserId } from '@atelier/validation';
import type { CommunityContext } from '../community-context.js';
import { selectAuthorPostsPage } from '../db/post-sql.js';
import { requireWritableStatus, type StoredStatus } from '../domain/post-rules.js';
import { toPostMessage } from './post-mapper.js';

type ListMyPosts = Handler<typeof communityV1.CommunityServiceService.listMyPosts>;

/** Unspecified lists drafts and published posts; deleted posts are gone for their author too. */
function statusFilter(status: communityV1.PostStatus): StoredStatus[] {
  return status === communityV1.PostStatus.UNSPECIFIED ? ['draft', 'published'] : [requireWritableStatus(status)];
}

/** The author's live posts, newest first by creation, keyset-paginated. */
export function listMyPosts({ pool }: CommunityContext): ListMyPosts {
  return async (request) => {
    const authorUserId = requireUserId(request.authorUserId, 'author_user_id');
    const statuses = statusFilter(request.status);
    const limit = pageSize(request.pageSize);
    const cursor = decodeListingPageToken('mine', request.pageToken);
    const rows = await selectAuthorPostsPage(pool, authorUserId, statuses, cursor, limit);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      posts: page.map(toPostMessage),
      nextPageToken: rows.length > limit && last ? encodeListingPageToken('mine', { at: last.created_at, id: last.id }) : '',
    };
  };
}
