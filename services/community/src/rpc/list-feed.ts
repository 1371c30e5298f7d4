import type { communityV1 } from '@atelier/contracts';
import { decodeListingPageToken, encodeListingPageToken, pageSize } from '@atelier/encoding';
import type { Handler } from '@atelier/grpc';
import type { CommunityContext } from '../community-context.js';
import { selectFeedPage } from '../db/post-sql.js';
import { toPostMessage } from './post-mapper.js';

type ListFeed = Handler<typeof communityV1.CommunityServiceService.listFeed>;

/** Published posts, newest first, keyset-paginated (see selectFeedPage for why pages are stable). */
export function listFeed({ pool }: CommunityContext): ListFeed {
  return async (request) => {
    const limit = pageSize(request.pageSize);
    const cursor = decodeListingPageToken('feed', request.pageToken);
    const rows = await selectFeedPage(pool, cursor, limit);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    // A published row always has published_at (CHECK posts_status_timestamps).
    return {
      posts: page.map(toPostMessage),
      nextPageToken: rows.length > limit && last ? encodeListingPageToken('feed', { at: last.published_at!, id: last.id }) : '',
    };
  };
}
