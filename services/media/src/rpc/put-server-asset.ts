import { createHash } from 'node:crypto';
import { accountDeletionStarted } from '@atelier/account-deletion';
import type { mediaV1 } from '@atelier/contracts';
import { inTransaction, uuidv7 } from '@atelier/db';
import { AccountDeletedError, InvalidArgumentError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { requireIdempotencyKey, requireUserId } from '@atelier/validation';
import {
  selectLiveAssetByIdempotencyKey,
  insertUploadingAsset,
  updateAssetDeleted,
  updateAssetReady,
  storageKeyFor,
} from '../db/asset-sql.js';
import { MEDIA_ACCOUNT_DELETIONS } from '../db/account-deletion-sql.js';
import { lockOwnerForUploads } from '../db/upload-usage-sql.js';
import { requireContentType, requireServerPurpose, requireSize, verifyImage } from '../domain/asset-rules.js';
import type { MediaContext } from '../media-context.js';
import { toAssetMessage } from './asset-mapper.js';

type PutServerAsset = Handler<typeof mediaV1.MediaServiceService.putServerAsset>;

async function readHeader(iterator: AsyncIterator<mediaV1.PutServerAssetRequest>): Promise<mediaV1.PutServerAssetHeader> {
  const first = await iterator.next();
  if (first.done || first.value.part?.$case !== 'header') {
    throw new InvalidArgumentError('header', 'the first message must carry the header');
  }
  return first.value.part.header;
}

async function readBytes(iterator: AsyncIterator<mediaV1.PutServerAssetRequest>, sizeBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
    if (next.value.part?.$case !== 'chunk') throw new InvalidArgumentError('header', 'only the first message may carry a header');
    total += next.value.part.chunk.length;
    if (total > sizeBytes) throw new InvalidArgumentError('chunk', `more bytes arrived than size_bytes (${sizeBytes})`);
    chunks.push(next.value.part.chunk);
  }
  if (total !== sizeBytes) throw new InvalidArgumentError('size_bytes', `${total} bytes arrived, ${sizeBytes} were declared`);
  return Buffer.concat(chunks, total);
}

/**
 * Server-written bytes (the worker's generated images), verified like an upload. With an
 * idempotency key (the job id) a repeated put — a worker that crashed after storing and before
 * completing, then ran again — returns the asset stored the first time instead of a second one,
 * so no orphan is left behind.
 */
export function putServerAsset({ pool, store }: MediaContext): PutServerAsset {
  return async (requests) => {
    const iterator = requests[Symbol.asyncIterator]();
    const header = await readHeader(iterator);
    const ownerUserId = requireUserId(header.ownerUserId, 'owner_user_id');
    const purpose = requireServerPurpose(header.purpose);
    const contentType = requireContentType(header.contentType);
    const sizeBytes = requireSize(header.sizeBytes);
    const idempotencyKey = header.idempotencyKey === undefined ? null : requireIdempotencyKey(header.idempotencyKey);

    const bytes = await readBytes(iterator, sizeBytes);
    let earlier = idempotencyKey ? await selectLiveAssetByIdempotencyKey(pool, ownerUserId, idempotencyKey) : null;
    if (earlier?.status === 'ready') return { asset: toAssetMessage(earlier), created: false };
    if (earlier && (earlier.contentType !== contentType || earlier.sizeBytes !== sizeBytes)) {
      // A dead earlier put declared other bytes: abandon it rather than mix the two.
      await updateAssetDeleted(pool, earlier.id);
      await store.delete(earlier.storageKey).catch(() => {});
      earlier = null;
    }

    const facts = verifyImage(bytes, contentType, sizeBytes);
    const sha256 = createHash('sha256').update(bytes).digest();
    const id = uuidv7();
    // An `uploading` row with the same key is an earlier put that died before marking it ready:
    // finish that one rather than starting another.
    const asset =
      earlier ??
      (await inTransaction(pool, async (client) => {
        // The output of a job of an account being deleted has nowhere to go.
        await lockOwnerForUploads(client, ownerUserId);
        if (await accountDeletionStarted(client, MEDIA_ACCOUNT_DELETIONS, ownerUserId)) throw new AccountDeletedError();
        return insertUploadingAsset(client, {
          id,
          ownerUserId,
          purpose,
          contentType,
          sizeBytes,
          storageKey: storageKeyFor(id),
          idempotencyKey,
        });
      })) ??
      (await selectLiveAssetByIdempotencyKey(pool, ownerUserId, idempotencyKey!));
    if (asset!.status === 'ready') return { asset: toAssetMessage(asset!), created: false };

    await store.put(asset!.storageKey, bytes, contentType);
    const ready = await updateAssetReady(pool, asset!.id, facts, sha256);
    if (!ready && (await accountDeletionStarted(pool, MEDIA_ACCOUNT_DELETIONS, ownerUserId))) {
      // The account's deletion took the row while the bytes were on their way: they go too.
      await store.delete(asset!.storageKey).catch(() => {});
      throw new AccountDeletedError();
    }
    if (!ready)
      return { asset: toAssetMessage((await selectLiveAssetByIdempotencyKey(pool, ownerUserId, idempotencyKey!))!), created: false };
    return { asset: toAssetMessage(ready), created: true };
  };
}
