import { loadDescriptorSet, mediaV1 } from '@atelier/contracts';
import { registerService, startGrpcServer, type GrpcServerHandle, type GrpcServingOptions } from '@atelier/grpc';
import type { MediaContext } from './media-context.js';
import { mediaCallerPolicy } from './rpc/caller-policy.js';
import { completeUpload } from './rpc/complete-upload.js';
import { createUpload } from './rpc/create-upload.js';
import { deleteAsset } from './rpc/delete-asset.js';
import { getAccountDeletion } from './rpc/get-account-deletion.js';
import { deleteOwnAsset } from './rpc/delete-own-asset.js';
import { deleteExpiredInput } from './rpc/delete-expired-input.js';
import { listAssets } from './rpc/list-assets.js';
import { getAsset, getAssetInternal, getAssetsInternal } from './rpc/get-asset.js';
import { putServerAsset } from './rpc/put-server-asset.js';
import { readAsset } from './rpc/read-asset.js';

export const MEDIA_SERVICE_NAME = 'atelier.media.v1.MediaService';

/** Serves atelier.media.v1.MediaService over mutual TLS, with health (and reflection when enabled). */
export function startMediaServer(context: MediaContext, options: GrpcServingOptions): Promise<GrpcServerHandle> {
  const handlers = {
    createUpload: createUpload(context),
    completeUpload: completeUpload(context),
    getAsset: getAsset(context),
    getAssetInternal: getAssetInternal(context),
    getAssetsInternal: getAssetsInternal(context),
    putServerAsset: putServerAsset(context),
    readAsset: readAsset(context),
    deleteAsset: deleteAsset(context),
    getAccountDeletion: getAccountDeletion(context),
    listAssets: listAssets(context),
    deleteOwnAsset: deleteOwnAsset(context),
    deleteExpiredInput: deleteExpiredInput(context),
  };
  return startGrpcServer({
    ...options,
    logger: context.logger,
    descriptorSet: loadDescriptorSet(),
    services: [registerService(MEDIA_SERVICE_NAME, mediaV1.MediaServiceService, handlers, context.logger, mediaCallerPolicy)],
  });
}
