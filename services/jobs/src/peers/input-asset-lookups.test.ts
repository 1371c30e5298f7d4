// The coalesced input look-ups against a fake media peer (a unit test).
import { describe, expect, it } from 'vitest';
import { mediaV1 } from '@atelier/contracts';
import { AppError, ErrorCode, NotFoundError } from '@atelier/errors';
import { GrpcStatus } from '@atelier/grpc';
import { inputAssetLookups } from './input-asset-lookups.js';

function fakeMedia(options: { batchRpc: boolean }) {
  const assets = new Map(['a', 'b', 'c'].map((id) => [id, mediaV1.Asset.fromPartial({ id, ownerUserId: `owner-${id}` })]));
  const calls: string[][] = [];
  return {
    calls,
    media: {
      getAssetsInternal: async ({ assetIds }: { assetIds: string[] }) => {
        if (!options.batchRpc) {
          throw new AppError(ErrorCode.INTERNAL, 'unimplemented', {
            cause: Object.assign(new Error('x'), { code: GrpcStatus.UNIMPLEMENTED }),
          });
        }
        calls.push(assetIds);
        return { assets: assetIds.flatMap((id) => (assets.has(id) ? [assets.get(id)!] : [])) };
      },
      getAssetInternal: async ({ assetId }: { assetId: string }) => {
        calls.push([assetId]);
        if (!assets.has(assetId)) throw new NotFoundError('asset');
        return { asset: assets.get(assetId)! };
      },
    },
  };
}

describe('input asset lookups - coalesced', () => {
  it('answers each create its own asset from one batch call, and NotFoundError for an id media has not', async () => {
    const fake = fakeMedia({ batchRpc: true });
    const lookups = inputAssetLookups(fake.media, { maxBatch: 100, maxConcurrent: 1 });
    const first = lookups.get('a');
    const rest = Promise.allSettled(['b', 'missing', 'c', 'b'].map((id) => lookups.get(id)));
    await expect(first).resolves.toMatchObject({ id: 'a', ownerUserId: 'owner-a' });
    const settled = await rest;
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value.id : (s.reason as Error).name))).toEqual([
      'b',
      'NotFoundError',
      'c',
      'b',
    ]);
    // Made in the same turn of the event loop, they leave together: one call, each id once.
    expect(fake.calls).toEqual([['a', 'b', 'missing', 'c']]);
  });

  it('asks each id alone when media does not serve the batch call yet', async () => {
    const fake = fakeMedia({ batchRpc: false });
    const lookups = inputAssetLookups(fake.media);
    await expect(Promise.all([lookups.get('a'), lookups.get('c')])).resolves.toMatchObject([{ id: 'a' }, { id: 'c' }]);
    await expect(lookups.get('missing')).rejects.toBeInstanceOf(NotFoundError);
    expect(fake.calls.sort()).toEqual([['a'], ['c'], ['missing']]);
  });
});
