import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobsExecutionV1 } from '@atelier/contracts';
import { ErrorCode } from '@atelier/errors';
import type { PromiseClient } from '@atelier/grpc';
import { testClient } from '@atelier/testing';
import { catalogChoice, startJobsHarness, stylizeRequest, uploadInputImage, type JobsHarness } from './test-support/jobs-harness.js';

// CountActiveJobsUsingAsset, as media's owner delete asks it: real jobs, media and catalog.
let h: JobsHarness;
let choice: Awaited<ReturnType<typeof catalogChoice>>;
let asMedia: PromiseClient<jobsExecutionV1.JobExecutionServiceClient>;

beforeAll(async () => {
  h = await startJobsHarness();
  choice = await catalogChoice(h.catalog);
  asMedia = await testClient(jobsExecutionV1.JobExecutionServiceClient, h.address, 'media');
}, 90_000);

afterAll(async () => {
  asMedia?.close();
  await h?.stop();
});

let seq = 0;
const newUser = () => `usage-${process.pid}-${++seq}`;

async function stylize(userId: string, inputAssetId: string, key: string) {
  const { job } = await h.jobs.createJob(stylizeRequest(choice, { userId, idempotencyKey: key, inputAssetId, prompt: 'in use' }));
  return job!;
}

describe('jobs - CountActiveJobsUsingAsset', () => {
  it('counts the owner’s queued and running jobs on the asset, not ended ones', async () => {
    const user = newUser();
    const input = await uploadInputImage(h.media, user);
    const count = () => asMedia.countActiveJobsUsingAsset({ assetId: input, userId: user }).then((r) => r.count);
    expect(await count()).toBe(0);
    const first = await stylize(user, input, 'a');
    await stylize(user, input, 'b');
    expect(await count()).toBe(2);
    expect((await h.execution.claimJob({ jobId: first.id, workerId: 'usage-worker' })).outcome).toBe(jobsExecutionV1.ClaimOutcome.CLAIMED);
    expect(await count()).toBe(2);
    await h.jobs.cancelJob({ jobId: first.id, userId: user });
    expect(await count()).toBe(1);
    // Another user's count of the same id is theirs alone (a job only uses its own user's assets).
    expect((await asMedia.countActiveJobsUsingAsset({ assetId: input, userId: newUser() })).count).toBe(0);
  });

  it('counts the job still writing an output by its id', async () => {
    const user = newUser();
    const job = await stylize(user, await uploadInputImage(h.media, user), 'writer');
    const output = '00000000-0000-7000-8000-0000000000aa';
    expect((await asMedia.countActiveJobsUsingAsset({ assetId: output, userId: user, producingJobId: job.id })).count).toBe(1);
    expect((await asMedia.countActiveJobsUsingAsset({ assetId: output, userId: user })).count).toBe(0);
  });

  it('is for media alone, and names a malformed id', async () => {
    const asCommunity = await testClient(jobsExecutionV1.JobExecutionServiceClient, h.address, 'community');
    try {
      await expect(
        asCommunity.countActiveJobsUsingAsset({ assetId: '00000000-0000-7000-8000-000000000000', userId: 'u' }),
      ).rejects.toMatchObject({
        code: ErrorCode.PERMISSION_DENIED,
      });
    } finally {
      asCommunity.close();
    }
    await expect(asMedia.countActiveJobsUsingAsset({ assetId: 'nope', userId: 'u' })).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      message: expect.stringContaining('asset_id'),
    });
  });
});
