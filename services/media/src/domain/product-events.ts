import type { ProductEventFact } from '@atelier/outbox';

/** What the event tells of an asset: the fields of its row (db/asset-sql.ts) it reads. */
export interface UploadFacts {
  id: string;
  ownerUserId: string;
  purpose: string;
  contentType: string;
  sizeBytes: number;
  width: number | null;
  height: number | null;
  createdAt: Date;
  readyAt: Date | null;
}

/**
 * The product event of a completed upload: creation_upload_completed for a photo uploaded for a
 * creation (purpose ai_input), none for any other purpose. Ids and facts only: the image's type,
 * size and sides, and how long the upload took from its creation to its completion.
 */
export function uploadCompletedEvent(asset: UploadFacts): ProductEventFact | null {
  if (asset.purpose !== 'ai_input' || !asset.readyAt) return null;
  return {
    name: 'creation_upload_completed',
    aggregateId: asset.id,
    userId: asset.ownerUserId,
    occurredAt: asset.readyAt,
    props: {
      asset_id: asset.id,
      purpose: asset.purpose,
      content_type: asset.contentType,
      size_bytes: asset.sizeBytes,
      width: asset.width,
      height: asset.height,
      upload_ms: asset.readyAt.getTime() - asset.createdAt.getTime(),
    },
  };
}
