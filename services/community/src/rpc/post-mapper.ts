import type { communityV1 } from '@atelier/contracts';
import type { PostRow } from '../db/post-row.js';
import { categoryMessage, statusMessage } from '../domain/post-rules.js';

export function toPostMessage(row: PostRow): communityV1.Post {
  return {
    id: row.id,
    authorUserId: row.author_user_id,
    authorHandle: row.author_handle ?? '',
    petId: row.pet_id ?? undefined,
    category: categoryMessage(row.category),
    title: row.title,
    content: row.content,
    status: statusMessage(row.status),
    generationJobId: row.generation_job_id ?? undefined,
    media: row.media_asset_ids.map((assetId, ordinal) => ({ assetId, ordinal })),
    version: row.version,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    publishedAt: row.published_at ?? undefined,
  };
}
