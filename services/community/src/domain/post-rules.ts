import { communityV1, enumWords, type EnumWord } from '@atelier/contracts';
import { InvalidArgumentError } from '@atelier/errors';
import { MAX_MEDIA_PER_POST, MAX_POST_CONTENT_LENGTH, MAX_POST_TITLE_LENGTH, isUuid, requireText, requireUuid } from '@atelier/validation';

/** How categories and statuses are stored (the `category` and `status` columns): the contract's words. */
export type StoredCategory = EnumWord<typeof communityV1.PostCategory>;
export type StoredStatus = EnumWord<typeof communityV1.PostStatus>;
/** The statuses a create or an update may ask for; deletion has its own RPC. */
export type WritableStatus = Exclude<StoredStatus, 'deleted'>;

const CATEGORIES = enumWords(communityV1.PostCategory);
const STATUSES = enumWords(communityV1.PostStatus);

export function categoryMessage(stored: StoredCategory): communityV1.PostCategory {
  return CATEGORIES.fromWord(stored) ?? communityV1.PostCategory.UNSPECIFIED;
}

export function statusMessage(stored: StoredStatus): communityV1.PostStatus {
  return STATUSES.fromWord(stored) ?? communityV1.PostStatus.UNSPECIFIED;
}

/** A known category; unspecified is refused (create) — callers that mean "unchanged" check first. */
export function requireCategory(category: communityV1.PostCategory, field = 'category'): StoredCategory {
  const stored = CATEGORIES.wordOf(category);
  if (!stored) throw new InvalidArgumentError(field, 'must be one of GENERAL, HELP, AI_CREATION');
  return stored;
}

/** DRAFT or PUBLISHED. Deleting is DeletePost's job, so a write never asks for it. */
export function requireWritableStatus(status: communityV1.PostStatus, field = 'status'): WritableStatus {
  const stored = STATUSES.wordOf(status);
  if (stored === 'draft' || stored === 'published') return stored;
  throw new InvalidArgumentError(field, 'must be DRAFT or PUBLISHED');
}

export function requireTitle(title: string | undefined): string {
  return requireText(title, 'title', MAX_POST_TITLE_LENGTH);
}

export function requireContent(content: string | undefined): string {
  return requireText(content, 'content', MAX_POST_CONTENT_LENGTH, { allowEmpty: true });
}

/** An optional id: absent or empty means none. */
export function optionalUuid(value: string | undefined, field: string): string | null {
  return value === undefined || value === '' ? null : requireUuid(value, field);
}

/**
 * Media ids in display order: UUIDs, at most MAX_MEDIA_PER_POST, each once (the same image twice is a mistake,
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
