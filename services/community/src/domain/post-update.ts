import { communityV1 } from '@atelier/contracts';
import { AbortedError, FailedPreconditionError, InvalidArgumentError } from '@atelier/errors';
import { requireJobForCategory } from './generation-rules.js';
import {
  optionalUuid,
  requireCategory,
  requireContent,
  requireMediaAssetIds,
  requireTitle,
  requireWritableStatus,
  type StoredCategory,
  type StoredStatus,
  type WritableStatus,
} from './post-rules.js';

/** What an UpdatePost asks to change; undefined or null leaves a field as it is. */
export interface UpdateFields {
  expectedVersion: number;
  title: string | undefined;
  content: string | undefined;
  category: StoredCategory | null;
  status: WritableStatus | null;
  /** undefined: unchanged; null: the post is about no pet any more. */
  petId: string | null | undefined;
  mediaAssetIds: string[] | null;
}

/** The parts of a stored post an update plans from. */
export interface PostState {
  title: string;
  content: string;
  category: StoredCategory;
  status: StoredStatus;
  petId: string | null;
  generationJobId: string | null;
  mediaAssetIds: readonly string[];
  version: number;
}

export interface UpdatePlan {
  title: string;
  content: string;
  category: StoredCategory;
  status: WritableStatus;
  petId: string | null;
  /** The new media list, or null when it stays as it is. */
  mediaAssetIds: string[] | null;
  /** False when the request changes nothing: no write, no new version. */
  changes: boolean;
  /** The new media must be checked with media, and must still include the job's output. */
  checkMedia: boolean;
}

/**
 * Every field rule of UpdatePost. Unspecified category and status, and absent title, content,
 * pet and media mean "unchanged"; an empty pet_id removes the pet.
 */
export function normaliseUpdateFields(request: communityV1.UpdatePostRequest): UpdateFields {
  if (!Number.isInteger(request.expectedVersion) || request.expectedVersion < 1) {
    throw new InvalidArgumentError('expected_version', 'must be the version the change is based on (1 or more)');
  }
  return {
    expectedVersion: request.expectedVersion,
    title: request.title === undefined ? undefined : requireTitle(request.title),
    content: request.content === undefined ? undefined : requireContent(request.content),
    category: request.category === communityV1.PostCategory.UNSPECIFIED ? null : requireCategory(request.category),
    status: request.status === communityV1.PostStatus.UNSPECIFIED ? null : requireWritableStatus(request.status),
    petId: request.petId === undefined ? undefined : optionalUuid(request.petId, 'pet_id'),
    mediaAssetIds: request.media === undefined ? null : requireMediaAssetIds(request.media.assetIds, 'media.asset_ids'),
  };
}

export function versionConflict(currentVersion: number, expectedVersion: number): AbortedError {
  return new AbortedError(
    'VERSION_CONFLICT',
    `the post is at version ${currentVersion}, the change was based on version ${expectedVersion}; reload it and try again`,
  );
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((id, i) => id === b[i]);

/**
 * The post after the change, refused when it would break a rule the post must keep: it must
 * still be at the named version, a published post cannot go back to draft, and an ai_creation
 * post needs a generation job (which an update cannot add). Media rules that need the peers are
 * left to the caller, flagged by checkMedia.
 */
export function planUpdate(current: PostState, fields: UpdateFields): UpdatePlan {
  if (current.version !== fields.expectedVersion) throw versionConflict(current.version, fields.expectedVersion);
  if (current.status === 'deleted') throw new Error('a deleted post cannot be planned for');
  if (current.status === 'published' && fields.status === 'draft') {
    throw new FailedPreconditionError('POST_ALREADY_PUBLISHED', 'a published post cannot go back to draft; delete it instead');
  }
  const plan = {
    title: fields.title ?? current.title,
    content: fields.content ?? current.content,
    category: fields.category ?? current.category,
    status: fields.status ?? current.status,
    petId: fields.petId === undefined ? current.petId : fields.petId,
  };
  requireJobForCategory(plan.category, current.generationJobId);
  const mediaChanges = fields.mediaAssetIds !== null && !sameList(fields.mediaAssetIds, current.mediaAssetIds);
  const changes =
    mediaChanges ||
    plan.title !== current.title ||
    plan.content !== current.content ||
    plan.category !== current.category ||
    plan.status !== current.status ||
    plan.petId !== current.petId;
  return { ...plan, mediaAssetIds: mediaChanges ? fields.mediaAssetIds : null, changes, checkMedia: mediaChanges };
}
