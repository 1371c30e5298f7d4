import { Migration } from '@atelier/orm';

/**
 * community.posts and community.post_media.
 *
 * The CHECKs restate the post rules so that no code path can store a post that breaks them: a
 * known category and status, an ai_creation post always names its generation job, published_at
 * is set exactly when the post is (or was, before deletion) published, deleted_at exactly when
 * it is deleted. UNIQUE(author_user_id, idempotency_key) is L1 idempotency: concurrent creates
 * with one key insert one row.
 *
 * Timestamps keep milliseconds (timestamptz(3)): they travel through JavaScript Dates and page
 * tokens, and a keyset cursor must hold exactly the value it compares against, or a row with
 * extra microseconds would be read twice.
 *
 * Ids of other services (pet, generation job, media assets) carry no foreign keys: each service
 * owns its schema, and the ids are validated over gRPC when they are written.
 */
export class CommunityBaseline extends Migration {
  override up(): void {
    this.addSql(`
      CREATE TABLE community.posts (
        id                uuid           PRIMARY KEY,
        author_user_id    varchar(128)   NOT NULL CONSTRAINT posts_author_present CHECK (author_user_id <> ''),
        pet_id            uuid,
        category          varchar(16)    NOT NULL
                          CONSTRAINT posts_category_known CHECK (category IN ('general', 'help', 'ai_creation')),
        title             varchar(120)   NOT NULL CONSTRAINT posts_title_trimmed CHECK (title <> '' AND title = btrim(title)),
        content           varchar(10000) NOT NULL DEFAULT '',
        status            varchar(16)    NOT NULL
                          CONSTRAINT posts_status_known CHECK (status IN ('draft', 'published', 'deleted')),
        generation_job_id uuid,
        idempotency_key   varchar(128)   NOT NULL CONSTRAINT posts_idempotency_key_present CHECK (idempotency_key <> ''),
        request_hash      bytea          NOT NULL CONSTRAINT posts_request_hash_length CHECK (octet_length(request_hash) = 32),
        version           integer        NOT NULL DEFAULT 1 CONSTRAINT posts_version_positive CHECK (version >= 1),
        created_at        timestamptz(3) NOT NULL DEFAULT now(),
        updated_at        timestamptz(3) NOT NULL DEFAULT now(),
        published_at      timestamptz(3),
        deleted_at        timestamptz(3),
        CONSTRAINT posts_ai_creation_has_job CHECK (category <> 'ai_creation' OR generation_job_id IS NOT NULL),
        CONSTRAINT posts_status_timestamps CHECK (
             (status = 'draft' AND published_at IS NULL AND deleted_at IS NULL)
          OR (status = 'published' AND published_at IS NOT NULL AND deleted_at IS NULL)
          OR (status = 'deleted' AND deleted_at IS NOT NULL)),
        CONSTRAINT posts_updated_after_created CHECK (updated_at >= created_at),
        CONSTRAINT posts_published_after_created CHECK (published_at IS NULL OR published_at >= created_at),
        CONSTRAINT posts_deleted_after_created CHECK (deleted_at IS NULL OR deleted_at >= created_at),
        CONSTRAINT posts_author_idempotency_key UNIQUE (author_user_id, idempotency_key)
      )`);
    // The feed: published posts newest first, read page by page with a (published_at, id) keyset.
    this.addSql(`CREATE INDEX posts_feed_idx ON community.posts (published_at DESC, id DESC) WHERE status = 'published'`);
    // An author's own posts newest first (ListMyPosts), with the same kind of keyset.
    this.addSql(`CREATE INDEX posts_author_created_idx ON community.posts (author_user_id, created_at DESC, id DESC)`);

    // A post's media in display order. At most 10 per post is checked in code; the keys make an
    // asset appear once per post and each position hold one asset.
    this.addSql(`
      CREATE TABLE community.post_media (
        post_id  uuid    NOT NULL REFERENCES community.posts (id) ON DELETE CASCADE,
        asset_id uuid    NOT NULL,
        ordinal  integer NOT NULL CONSTRAINT post_media_ordinal_non_negative CHECK (ordinal >= 0),
        CONSTRAINT post_media_pkey PRIMARY KEY (post_id, ordinal),
        CONSTRAINT post_media_post_asset_key UNIQUE (post_id, asset_id)
      )`);
  }
}
