import type { StoredCategory, StoredStatus } from '../domain/post-rules.js';

/**
 * A row of community.posts as pg returns it, with the ids of its media in ordinal order
 * (read in the same statement, so a post and its media are always one snapshot).
 */
export interface PostRow {
  id: string;
  author_user_id: string;
  pet_id: string | null;
  category: StoredCategory;
  title: string;
  content: string;
  status: StoredStatus;
  generation_job_id: string | null;
  idempotency_key: string;
  request_hash: Buffer;
  version: number;
  created_at: Date;
  updated_at: Date;
  published_at: Date | null;
  deleted_at: Date | null;
  media_asset_ids: string[];
  /** The author's public handle (community.authors); null only for a row read before it exists. */
  author_handle: string | null;
}

/** The author's public handle of the post aliased `alias`, as column author_handle. */
export const AUTHOR_HANDLE_OF = (alias: string) =>
  `(SELECT a.handle FROM community.authors a WHERE a.user_id = ${alias}.author_user_id) AS author_handle`;

/** The select list of every read: the post, its media ids in display order and its author's handle. */
export const POST_COLUMNS = `p.*,
  ARRAY(SELECT m.asset_id FROM community.post_media m WHERE m.post_id = p.id ORDER BY m.ordinal) AS media_asset_ids,
  ${AUTHOR_HANDLE_OF('p')}`;
