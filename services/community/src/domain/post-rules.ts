import { communityV1 } from '@atelier/contracts';
import { InvalidArgumentError } from '@atelier/errors';
import { isUuid, requireText, requireUuid } from '@atelier/validation';

/** How categories and statuses are stored (the `category` and `status` columns). */
export type StoredCategory = 'general' | 'help' | 'ai_creation';
export type StoredStatus = 'draft' | 'published' | 'deleted';
/** The statuses a create or an update may ask for; deletion has its own RPC. */
export type WritableStatus = Exclude<StoredStatus, 'deleted'>;

export const MAX_TITLE_LENGTH = 120;
export const MAX_CONTENT_LENGTH = 10_000;
export const MAX_MEDIA_PER_POST = 10;

const CATEGORIES: ReadonlyMap<communityV1.PostCategory, StoredCategory> = new Map([
  [communityV1.PostCategory.GENERAL, 'general'],
  [communityV1.PostCategory.HELP, 'help'],
  [communityV1.PostCategory.AI_CREATION, 'ai_creation'],
]);

const STATUSES: ReadonlyMap<communityV1.PostStatus, StoredStatus> = new Map([
  [communityV1.PostStatus.DRAFT, 'draft'],
  [communityV1.PostStatus.PUBLISHED, 'published'],
  [communityV1.PostStatus.DELETED, 'deleted'],
]);

export function categoryMessage(stored: StoredCategory): communityV1.PostCategory {
  for (const [message, value] of CATEGORIES) if (value === stored) return message;
  return communityV1.PostCategory.UNSPECIFIED;
}

export function statusMessage(stored: StoredStatus): communityV1.PostStatus {
  for (const [message, value] of STATUSES) if (value === stored) return message;
  return communityV1.PostStatus.UNSPECIFIED;
}

/** A known category; unspecified is refused (create) — callers that mean "unchanged" check first. */
export function requireCategory(category: communityV1.PostCategory, field = 'category'): StoredCategory {
  const stored = CATEGORIES.get(category);
  if (!stored) throw new InvalidArgumentError(field, 'must be one of GENERAL, HELP, AI_CREATION');
  return stored;
}

/** DRAFT or PUBLISHED. Deleting is DeletePost's job, so a write never asks for it. */
export function requireWritableStatus(status: communityV1.PostStatus, field = 'status'): WritableStatus {
  const stored = STATUSES.get(status);
  if (stored === 'draft' || stored === 'published') return stored;
  throw new InvalidArgumentError(field, 'must be DRAFT or PUBLISHED');
}

export function requireTitle(title: string | undefined): string {
  return requireText(title, 'title', MAX_TITLE_LENGTH);
}

export function requireContent(content: string | undefined): string {
  return requireText(content, 'content', MAX_CONTENT_LENGTH, { allowEmpty: true });
}

/** An optional id: absent or empty means none. */
export function optionalUuid(value: string | undefined, field: string): string | null {
  return value === undefined || value === '' ? null : requireUuid(value, field);
}

/**
 * Media ids in display order: UUIDs, at most 10, each once (the same image twice is a mistake,
 * not a layout). Refusals name the list as the field and the position in the message.
 */
export function requireMediaAssetIds(ids: readonly string[], field: string): string[] {
  if (ids.length > MAX_MEDIA_PER_POST) throw new InvalidArgumentError(field, `must list at most ${MAX_MEDIA_PER_POST} assets`);
  const seen = new Set<string>();
  return ids.map((id, index) => {
    if (!isUuid(id)) throw new InvalidArgumentError(field, `entry ${index} must be a UUID`);
    const normalised = id.toLowerCase();
    if (seen.has(normalised)) throw new InvalidArgumentError(field, `entry ${index} repeats an asset already listed`);
    seen.add(normalised);
    return normalised;
  });
}
