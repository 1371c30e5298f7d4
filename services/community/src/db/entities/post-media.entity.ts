import { defineEntity, p } from '@atelier/orm';
import { PostEntity } from './posts.entity.js';

/**
 * community.post_media: a post's media in display order. The keys make an asset appear once per
 * post and each position hold one asset; asset_id names a media asset (no foreign key: media owns
 * its schema). At most 10 per post is checked in code.
 */
export const PostMediaEntity = defineEntity({
  name: 'PostMedia',
  tableName: 'post_media',
  properties: {
    post: p.manyToOne(PostEntity).primary().fieldName('post_id').deleteRule('cascade').foreignKeyName('post_media_post_id_fkey'),
    assetId: p.uuid(),
    ordinal: p.integer().primary(),
  },
  primaryKeys: ['post', 'ordinal'],
  uniques: [{ name: 'post_media_post_asset_key', properties: ['post', 'assetId'] }],
  checks: [{ name: 'post_media_ordinal_non_negative', expression: 'ordinal >= 0' }],
});
