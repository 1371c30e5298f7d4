import { communityV1 } from '@atelier/contracts';
import {
  optionalUuid,
  requireCategory,
  requireContent,
  requireMediaAssetIds,
  requireTitle,
  requireWritableStatus,
  type StoredCategory,
  type WritableStatus,
} from './post-rules.js';

/** A CreatePost request as a normalised command: what the request hash covers. */
export interface PostCommand {
  category: StoredCategory;
  title: string;
  content: string;
  status: WritableStatus;
  petId: string | null;
  generationJobId: string | null;
  /** In display order. */
  mediaAssetIds: string[];
}

/**
 * Every field rule of CreatePost: a known category, a title and content within
 * `@atelier/validation`'s limits after trimming (a title not empty), DRAFT or PUBLISHED
 * (unspecified means DRAFT), ids canonical, at most MAX_MEDIA_PER_POST media, none twice.
 */
export function normaliseCreateCommand(request: communityV1.CreatePostRequest): PostCommand {
  return {
    category: requireCategory(request.category),
    title: requireTitle(request.title),
    content: requireContent(request.content),
    status: request.status === communityV1.PostStatus.UNSPECIFIED ? 'draft' : requireWritableStatus(request.status),
    petId: optionalUuid(request.petId, 'pet_id'),
    generationJobId: optionalUuid(request.generationJobId, 'generation_job_id'),
    mediaAssetIds: requireMediaAssetIds(request.mediaAssetIds, 'media_asset_ids'),
  };
}
