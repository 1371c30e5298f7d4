import {
  commonV1,
  communityV1,
  enumWords,
  jobsAdminV1,
  jobsExecutionV1,
  jobsReconciliationV1,
  jobsUsageV1,
  jobsV1,
  mediaV1,
} from '@atelier/contracts';

/**
 * Two-way maps between the API's lower-case enum words and the contracts' enums. The words are
 * the contract's own value names in lower case (enumWords), so the API cannot drift from them.
 */
function enumMap<E extends Record<string, string | number>>(values: E) {
  const { words, wordOf, fromWord } = enumWords(values);
  return {
    words,
    toApi: (value: number): string => wordOf(value) ?? 'unknown',
    fromApi: (word: string) => fromWord(word),
  };
}

export const mediaKinds = enumMap(commonV1.MediaKind);
export const jobStatuses = enumMap(jobsV1.JobStatus);
export const jobQueues = enumMap(jobsV1.JobQueue);
export const assetPurposes = enumMap(mediaV1.AssetPurpose);
export const assetStatuses = enumMap(mediaV1.AssetStatus);
export const postCategories = enumMap(communityV1.PostCategory);
export const postStatuses = enumMap(communityV1.PostStatus);
export const outboxStatuses = enumMap(jobsAdminV1.OutboxStatus);
export const outboxReplayResults = enumMap(jobsAdminV1.OutboxReplayResult);
export const errorClasses = enumMap(jobsExecutionV1.ErrorClass);
export const providerCallKinds = enumMap(jobsUsageV1.ProviderCallKind);
export const providerCallOutcomes = enumMap(jobsUsageV1.ProviderCallOutcome);
export const findingKinds = enumMap(jobsReconciliationV1.ReconciliationFindingKind);
