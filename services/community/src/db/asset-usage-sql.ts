import type { Queryable } from '@atelier/db';

/**
 * Published posts of `authorUserId` that show an asset. A post only shows its author's own media
 * (CreatePost and UpdatePost check it), so the author's posts (posts_author_created_idx) joined
 * to their media by the primary key find every one without an index on asset_id. Drafts do not
 * count: only a published post is something others see disappear.
 */
export async function countPublishedPostsUsingAsset(db: Queryable, authorUserId: string, assetId: string): Promise<number> {
  const result = await db.query<{ count: number }>({
    name: 'community.count_published_using_asset',
    text: `SELECT count(*)::int AS count
             FROM community.posts p JOIN community.post_media m ON m.post_id = p.id
            WHERE p.author_user_id = $1 AND p.status = 'published' AND m.asset_id = $2`,
    values: [authorUserId, assetId],
  });
  return result.rows[0]!.count;
}
