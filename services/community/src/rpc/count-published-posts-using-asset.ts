import type { communityV1 } from '@atelier/contracts';
import type { Handler } from '@atelier/grpc';
import { requireUserId, requireUuid } from '@atelier/validation';
import type { CommunityContext } from '../community-context.js';
import { countPublishedPostsUsingAsset as countSql } from '../db/asset-usage-sql.js';

type CountPublishedPostsUsingAsset = Handler<typeof communityV1.CommunityServiceService.countPublishedPostsUsingAsset>;

/** For media's owner delete: an asset a published post shows stays until the post goes. */
export function countPublishedPostsUsingAsset({ pool }: CommunityContext): CountPublishedPostsUsingAsset {
  return async (request) => {
    const assetId = requireUuid(request.assetId, 'asset_id');
    const authorUserId = requireUserId(request.authorUserId, 'author_user_id');
    return { count: await countSql(pool, authorUserId, assetId) };
  };
}
