import type { mediaV1 } from '@atelier/contracts';
import { inTransaction, uuidv7 } from '@atelier/db';
import { FailedPreconditionError, NotFoundError, isAppError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { insertOutboxEvents } from '@atelier/outbox';
import { requireUserId, requireUuid } from '@atelier/validation';
import { selectAsset, updateAssetReady, updateUploadError, verifiedKeyFor, type Asset } from '../db/asset-sql.js';
import { IMAGE_HEADER_BYTES, verifyImageHeader } from '../domain/asset-rules.js';
import { uploadCompletedEvent } from '../domain/product-events.js';
import { CompletionGate } from './completion-gate.js';
import type { MediaContext } from '../media-context.js';
import { toAssetMessage } from './asset-mapper.js';

type CompleteUpload = Handler<typeof mediaV1.MediaServiceService.completeUpload>;

/** Completions checked at once per process when the context does not say (UPLOAD_COMPLETIONS_MAX). */
export const DEFAULT_UPLOAD_COMPLETIONS_MAX = 4;

/**
 * The check itself, on a server-side copy of the upload (so what is checked, hashed and served is
 * the same bytes, whatever the client PUTs later): HEAD for the size, a ranged GET of the header
 * for type and dimensions, a streaming SHA-256. The upload key is deleted once the row is ready.
 */
async function verifyAndPublish({ pool, store, logger, productEvents }: MediaContext, asset: Asset): Promise<Asset> {
  const head = await store.head(asset.storageKey);
  if (!head) throw new FailedPreconditionError('UPLOAD_OBJECT_MISSING', 'no bytes were uploaded for this asset yet');
  const sizeMismatch = (sizeBytes: number) =>
    new FailedPreconditionError('UPLOAD_SIZE_MISMATCH', `the object has ${sizeBytes} bytes, ${asset.sizeBytes} were declared`);
  if (head.sizeBytes !== asset.sizeBytes) throw sizeMismatch(head.sizeBytes);

  // A key per attempt: two replicas completing the same upload never overwrite each other's copy.
  const verifiedKey = verifiedKeyFor(asset.id, uuidv7());
  await store.copy(asset.storageKey, verifiedKey);
  try {
    // The client may have PUT again between the HEAD and the copy: check the copy.
    const copied = await store.head(verifiedKey);
    if (!copied) throw new FailedPreconditionError('UPLOAD_OBJECT_MISSING', 'no bytes were uploaded for this asset yet');
    if (copied.sizeBytes !== asset.sizeBytes) throw sizeMismatch(copied.sizeBytes);
    const facts = verifyImageHeader(await store.getPrefix(verifiedKey, IMAGE_HEADER_BYTES), asset.contentType);
    const sha256 = await store.sha256(verifiedKey);
    // Ready and its product event commit together: a completion that is refused, or loses the
    // race to another replica, writes no event; the one that wins writes it once.
    const ready = await inTransaction(pool, async (client) => {
      const updated = await updateAssetReady(client, asset.id, facts, sha256, verifiedKey);
      const event = updated && uploadCompletedEvent(updated);
      if (event) await insertOutboxEvents(client, 'media', [productEvents.outboxEvent(event)]);
      return updated;
    });
    if (!ready) {
      // Another replica completed it first, with its own copy: serve its row, drop ours. Or its
      // owner deleted it meanwhile (DeleteOwnAsset): then it is gone for this call too.
      await store.delete(verifiedKey).catch(() => {});
      const current = await selectAsset(pool, asset.id);
      if (!current || current.status === 'deleted') throw new NotFoundError('asset');
      return current;
    }
    await store.delete(asset.storageKey).catch((error: unknown) => {
      // Harmless: the asset is served from its verified key; the stray object is never read.
      logger.warn({ err: error, assetId: asset.id }, 'could not delete the upload object of a completed asset');
    });
    return ready;
  } catch (error) {
    const current = await selectAsset(pool, asset.id).catch(() => null);
    if (current && current.storageKey !== verifiedKey) await store.delete(verifiedKey).catch(() => {});
    throw error;
  }
}

/**
 * Step two: the object must exist with the declared size and be a real image within limits.
 * A refusal leaves the asset `uploading` (the client may PUT again while its URL is valid) and
 * records the reason. Completing a ready asset again returns it unchanged. Concurrent
 * completions of one upload in this process share one check; at most `uploadCompletionsMax`
 * checks run at once, the others wait briefly and are then refused as UNAVAILABLE.
 */
export function completeUpload(context: MediaContext): CompleteUpload {
  const { pool } = context;
  const gate = new CompletionGate<Asset>(context.uploadCompletionsMax ?? DEFAULT_UPLOAD_COMPLETIONS_MAX);
  return async (request) => {
    const id = requireUuid(request.assetId, 'asset_id');
    const ownerUserId = requireUserId(request.ownerUserId, 'owner_user_id');
    const asset = await selectAsset(pool, id);
    if (!asset || asset.ownerUserId !== ownerUserId || asset.status === 'deleted') throw new NotFoundError('asset');
    if (asset.status === 'ready') return { asset: toAssetMessage(asset) };

    const completed = await gate.run(id, async () => {
      try {
        return await verifyAndPublish(context, asset);
      } catch (error) {
        if (isAppError(error) && error.reason?.startsWith('UPLOAD_') && error.reason !== 'UPLOAD_COMPLETIONS_BUSY') {
          await updateUploadError(pool, id, `${error.reason}: ${error.message}`);
        }
        throw error;
      }
    });
    return { asset: toAssetMessage(completed) };
  };
}
