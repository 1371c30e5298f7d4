import { loadDescriptorSet, mediaV1 } from '@atelier/contracts';
import { registerService, startGrpcServer, type CallObserver, type GrpcServerHandle } from '@atelier/grpc';
import type { MediaContext } from './media-context.js';
import { completeUpload } from './rpc/complete-upload.js';
import { createUpload } from './rpc/create-upload.js';
import { deleteAsset } from './rpc/delete-asset.js';
import { getAsset, getAssetInternal } from './rpc/get-asset.js';
import { putServerAsset } from './rpc/put-server-asset.js';
import { readAsset } from './rpc/read-asset.js';

export const MEDIA_SERVICE_NAME = 'atelier.media.v1.MediaService';

/** Serves atelier.media.v1.MediaService with health and reflection. */
export function startMediaServer(
  context: MediaContext,
  options: { port: number; host?: string; callObserver?: CallObserver },
): Promise<GrpcServerHandle> {
  const handlers = {
    createUpload: createUpload(context),
    completeUpload: completeUpload(context),
    getAsset: getAsset(context),
    getAssetInternal: getAssetInternal(context),
    putServerAsset: putServerAsset(context),
    readAsset: readAsset(context),
    deleteAsset: deleteAsset(context),
  };
  return startGrpcServer({
    host: options.host,
    port: options.port,
    callObserver: options.callObserver,
    logger: context.logger,
    descriptorSet: loadDescriptorSet(),
    services: [registerService(MEDIA_SERVICE_NAME, mediaV1.MediaServiceService, handlers, context.logger)],
  });
}
