import type { mediaV1 } from '@atelier/contracts';
import type { CallerPolicy } from '@atelier/grpc';

/**
 * Who may call what (callers are the service identities of their certificates). Users reach
 * uploads, their own assets, their gallery and their deletes through the gateway; reading any user's asset (`…Internal`,
 * `ReadAsset`) and writing server assets is for the services that run and check jobs.
 */
export const mediaCallerPolicy: CallerPolicy<typeof mediaV1.MediaServiceService> = {
  gateway: ['createUpload', 'completeUpload', 'getAsset', 'listAssets', 'deleteOwnAsset', 'getAccountDeletion'],
  worker: ['getAssetInternal', 'readAsset', 'putServerAsset', 'deleteAsset'],
  // Retention's deletes of expired input images (docs/retention.md).
  jobs: ['getAssetInternal', 'getAssetsInternal', 'deleteExpiredInput'],
  community: ['getAssetInternal'],
  // A style's preview: checked at write, linked for the app (catalog's GetStylePreview).
  catalog: ['getAssetInternal'],
};
