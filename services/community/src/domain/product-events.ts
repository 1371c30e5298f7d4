import type { OutboxEvent, ProductEventFact, ProductEvents } from '@atelier/outbox';
import type { StoredCategory, StoredStatus } from './post-rules.js';

/** What the events tell of a post: the fields of its row (db/post-row.ts) they read. */
export interface PostFacts {
  id: string;
  author_user_id: string;
  pet_id: string | null;
  category: StoredCategory;
  status: StoredStatus;
  generation_job_id: string | null;
  created_at: Date;
  published_at: Date | null;
  media_asset_ids: readonly string[];
}

/** A write of a post: its creation (the one-tap draft or CreatePost), or an update from the status it had. */
export type PostWrite = { created: true; oneTapDraft: boolean } | { created: false; statusBefore: StoredStatus };

/**
 * The product events of a post's writes (ids and facts only: never a title, a text or an image URL).
 * creation_draft_created: the one-tap draft of a job was created (a replay creates nothing).
 * creation_post_published: a post of category ai_creation was published, by its create or by an
 * update of its draft; once per post, since a published post never goes back to draft.
 */
export function postProductEvents(write: PostWrite, post: PostFacts): ProductEventFact[] {
  const events: ProductEventFact[] = [];
  const base = { aggregateId: post.id, userId: post.author_user_id };
  if (write.created && write.oneTapDraft) {
    events.push({
      ...base,
      name: 'creation_draft_created',
      occurredAt: post.created_at,
      props: {
        post_id: post.id,
        job_id: post.generation_job_id,
        asset_id: post.media_asset_ids[0],
        has_pet: post.pet_id !== null,
      },
    });
  }
  const publishedNow = write.created || write.statusBefore !== 'published';
  if (publishedNow && post.status === 'published' && post.category === 'ai_creation' && post.published_at) {
    events.push({
      ...base,
      name: 'creation_post_published',
      occurredAt: post.published_at,
      props: {
        post_id: post.id,
        job_id: post.generation_job_id,
        category: post.category,
        media_count: post.media_asset_ids.length,
        has_pet: post.pet_id !== null,
        from_draft: !write.created,
        since_created_ms: post.published_at.getTime() - post.created_at.getTime(),
      },
    });
  }
  return events;
}

/** The outbox rows of a write, given the post it wrote: for the post's SQL to insert in the write's transaction. */
export const postOutboxEvents =
  (productEvents: ProductEvents, write: PostWrite) =>
  (post: PostFacts): OutboxEvent[] =>
    postProductEvents(write, post).map((fact) => productEvents.outboxEvent(fact));
