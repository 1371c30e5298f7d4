import { defineEntity, p } from '@atelier/orm';
import { MAX_IDEMPOTENCY_KEY_LENGTH, MAX_POST_CONTENT_LENGTH, MAX_POST_TITLE_LENGTH, MAX_USER_ID_LENGTH } from '@atelier/validation';

/**
 * community.posts. Timestamps keep milliseconds (timestamptz(3)): a keyset cursor must hold
 * exactly the value it compares against. pet_id and generation_job_id name rows of other services
 * and carry no foreign keys.
 */
export const PostEntity = defineEntity({
  name: 'Post',
  tableName: 'posts',
  properties: {
    id: p.uuid().primary(),
    authorUserId: p.string().length(MAX_USER_ID_LENGTH),
    petId: p.uuid().nullable(),
    category: p.string().length(16),
    title: p.string().length(MAX_POST_TITLE_LENGTH),
    content: p.string().length(MAX_POST_CONTENT_LENGTH).default(''),
    status: p.string().length(16),
    generationJobId: p.uuid().nullable(),
    idempotencyKey: p.string().length(MAX_IDEMPOTENCY_KEY_LENGTH),
    requestHash: p.blob(),
    version: p.integer().default(1),
    createdAt: p.datetime(3).defaultRaw('now()'),
    updatedAt: p.datetime(3).defaultRaw('now()'),
    publishedAt: p.datetime(3).nullable(),
    deletedAt: p.datetime(3).nullable(),
  },
  uniques: [{ name: 'posts_author_idempotency_key', properties: ['authorUserId', 'idempotencyKey'] }],
  indexes: [
    // The feed: published posts newest first, read with a (published_at, id) keyset.
    {
      name: 'posts_feed_idx',
      columns: [
        { name: 'published_at', sort: 'DESC' },
        { name: 'id', sort: 'DESC' },
      ],
      where: `status = 'published'`,
    },
    // An author's own posts newest first (ListMyPosts). Raw DDL as Postgres prints it: MikroORM
    // 7.2 reads `id DESC` after a column named `…_id` back as ascending (see schemaDrift, @atelier/orm).
    {
      name: 'posts_author_created_idx',
      expression: 'CREATE INDEX posts_author_created_idx ON community.posts USING btree (author_user_id, created_at DESC, id DESC)',
    },
  ],
  checks: [
    { name: 'posts_author_present', expression: `author_user_id <> ''` },
    { name: 'posts_category_known', expression: `category IN ('general', 'help', 'ai_creation')` },
    { name: 'posts_title_trimmed', expression: `title <> '' AND title = btrim(title)` },
    { name: 'posts_status_known', expression: `status IN ('draft', 'published', 'deleted')` },
    { name: 'posts_idempotency_key_present', expression: `idempotency_key <> ''` },
    { name: 'posts_request_hash_length', expression: 'octet_length(request_hash) = 32' },
    { name: 'posts_version_positive', expression: 'version >= 1' },
    { name: 'posts_ai_creation_has_job', expression: `category <> 'ai_creation' OR generation_job_id IS NOT NULL` },
    {
      name: 'posts_status_timestamps',
      expression: `(status = 'draft' AND published_at IS NULL AND deleted_at IS NULL)
        OR (status = 'published' AND published_at IS NOT NULL AND deleted_at IS NULL)
        OR (status = 'deleted' AND deleted_at IS NOT NULL)`,
    },
    { name: 'posts_updated_after_created', expression: 'updated_at >= created_at' },
    { name: 'posts_published_after_created', expression: 'published_at IS NULL OR published_at >= created_at' },
    { name: 'posts_deleted_after_created', expression: 'deleted_at IS NULL OR deleted_at >= created_at' },
  ],
});
