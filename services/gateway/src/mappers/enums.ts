import { commonV1, communityV1, jobsAdminV1, jobsV1, mediaV1 } from '@atelier/contracts';

/** Two-way maps between the API's lower-case enum words and the contracts' enums. */
function enumMap<E extends number>(pairs: readonly (readonly [string, E])[]) {
  const toApi = new Map<number, string>(pairs.map(([word, value]) => [value, word]));
  const fromApi = new Map<string, E>(pairs);
  return {
    words: pairs.map(([word]) => word),
    toApi: (value: number): string => toApi.get(value) ?? 'unknown',
    fromApi: (word: string): E | undefined => fromApi.get(word),
  };
}

export const mediaKinds = enumMap([
  ['image', commonV1.MediaKind.IMAGE],
  ['video', commonV1.MediaKind.VIDEO],
] as const);

export const jobStatuses = enumMap([
  ['queued', jobsV1.JobStatus.QUEUED],
  ['running', jobsV1.JobStatus.RUNNING],
  ['succeeded', jobsV1.JobStatus.SUCCEEDED],
  ['failed', jobsV1.JobStatus.FAILED],
  ['cancelled', jobsV1.JobStatus.CANCELLED],
] as const);

export const jobQueues = enumMap([
  ['interactive', jobsV1.JobQueue.INTERACTIVE],
  ['background', jobsV1.JobQueue.BACKGROUND],
] as const);

export const assetPurposes = enumMap([
  ['post_image', mediaV1.AssetPurpose.POST_IMAGE],
  ['user_avatar', mediaV1.AssetPurpose.USER_AVATAR],
  ['pet_avatar', mediaV1.AssetPurpose.PET_AVATAR],
  ['ai_input', mediaV1.AssetPurpose.AI_INPUT],
  ['ai_output', mediaV1.AssetPurpose.AI_OUTPUT],
] as const);

export const assetStatuses = enumMap([
  ['uploading', mediaV1.AssetStatus.UPLOADING],
  ['ready', mediaV1.AssetStatus.READY],
  ['deleted', mediaV1.AssetStatus.DELETED],
] as const);

export const postCategories = enumMap([
  ['general', communityV1.PostCategory.GENERAL],
  ['help', communityV1.PostCategory.HELP],
  ['ai_creation', communityV1.PostCategory.AI_CREATION],
] as const);

export const postStatuses = enumMap([
  ['draft', communityV1.PostStatus.DRAFT],
  ['published', communityV1.PostStatus.PUBLISHED],
  ['deleted', communityV1.PostStatus.DELETED],
] as const);

export const outboxStatuses = enumMap([
  ['pending', jobsAdminV1.OutboxStatus.PENDING],
  ['processing', jobsAdminV1.OutboxStatus.PROCESSING],
  ['published', jobsAdminV1.OutboxStatus.PUBLISHED],
  ['dead', jobsAdminV1.OutboxStatus.DEAD],
] as const);
