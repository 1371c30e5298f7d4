import { mediaV1 } from '@atelier/contracts';
import { AppError, ErrorCode, InvalidArgumentError, peerFailure } from '@atelier/errors';
import type { PromiseClient } from '@atelier/grpc';

/** A preview image's short-lived download URL, as media minted it. */
export interface PreviewLink {
  url: string;
  expiresAt: Date | undefined;
  contentType: string;
}

/** What the catalog asks media about style previews (media's GetAssetInternal, no owner check). */
export interface PreviewAssets {
  /** Refuses with INVALID_ARGUMENT (field preview_asset_id) an id that names no ready asset; a media outage is UNAVAILABLE. */
  requireReady(assetId: string): Promise<void>;
  /** The asset's download URL, or undefined when it is gone or not ready. */
  link(assetId: string): Promise<PreviewLink | undefined>;
}

const notFound = (error: unknown) => error instanceof AppError && error.code === ErrorCode.NOT_FOUND;

export function previewAssetsOf(media: PromiseClient<mediaV1.MediaServiceClient>): PreviewAssets {
  return {
    async requireReady(assetId) {
      const found = await media.getAssetInternal({ assetId, includeDownloadUrl: false }).catch((error: unknown) => {
        if (notFound(error)) return undefined;
        throw peerFailure('media', error);
      });
      const status = found?.asset?.status;
      if (status === undefined || status === mediaV1.AssetStatus.DELETED) {
        throw new InvalidArgumentError('preview_asset_id', `no media asset ${assetId}; upload the preview image first, then use its id`);
      }
      if (status !== mediaV1.AssetStatus.READY) {
        throw new InvalidArgumentError(
          'preview_asset_id',
          `the media asset ${assetId} has not finished uploading; complete its upload first`,
        );
      }
    },
    async link(assetId) {
      const found = await media.getAssetInternal({ assetId, includeDownloadUrl: true }).catch((error: unknown) => {
        if (notFound(error)) return undefined;
        throw peerFailure('media', error);
      });
      if (found?.asset?.status !== mediaV1.AssetStatus.READY || !found.downloadUrl) return undefined;
      return { url: found.downloadUrl, expiresAt: found.downloadExpiresAt, contentType: found.asset.contentType };
    },
  };
}
