// CreateJob image.stylize the way the app sends it: many users, each with an input image of their
// own, every create checked against catalog and media and counted against its user's quota.
// Shared by bench:jobs and bench:pipeline.
import sharp from 'sharp';
import { commonV1, jobsV1, mediaV1, type catalogV1 } from '@atelier/contracts';
import type { PromiseClient } from '@atelier/grpc';
import { closedLoop, forEachConcurrently } from './bench-kit.js';

export interface StylizeCreatesClients {
  jobs: PromiseClient<jobsV1.JobsServiceClient>;
  catalog: PromiseClient<catalogV1.CatalogServiceClient>;
  media: PromiseClient<mediaV1.MediaServiceClient>;
}

/** Uploads one ai_input image for each of `users` users (named `<prefix>-<n>`); answers them with their asset. */
export async function stylizeUsers(clients: StylizeCreatesClients, prefix: string, users: number): Promise<Map<string, string>> {
  const png = await sharp({ create: { width: 128, height: 128, channels: 3, background: 'teal' } })
    .png()
    .toBuffer();
  // The embedded S3-protocol store now and then answers a PUT 500, or closes the connection, under
  // concurrent uploads on a busy machine: an upload is started again (a new asset) up to three times.
  const uploadInput = async (user: string, attempt = 1): Promise<string> => {
    const upload = await clients.media.createUpload({
      ownerUserId: user,
      purpose: mediaV1.AssetPurpose.AI_INPUT,
      contentType: 'image/png',
      sizeBytes: png.length,
    });
    const put = await fetch(upload.uploadUrl, { method: 'PUT', headers: upload.uploadHeaders, body: png }).catch((error: unknown) => {
      if (attempt < 3) return undefined;
      throw error;
    });
    if (!put?.ok) {
      if (attempt < 3) return uploadInput(user, attempt + 1);
      throw new Error(`upload PUT for ${user} answered ${put!.status}: ${await put!.text()}`);
    }
    await clients.media.completeUpload({ assetId: upload.asset!.id, ownerUserId: user });
    return upload.asset!.id;
  };
  const inputs = new Map<string, string>();
  await forEachConcurrently(users, 4, async (i) => {
    const user = `${prefix}-${i}`;
    inputs.set(user, await uploadInput(user));
  });
  return inputs;
}

/**
 * Creates image.stylize jobs in a closed loop of `concurrency` callers for `durationMs`, user
 * after user; calls onCreated with each new job's id. Answers the loop's figures.
 */
export async function stylizeCreates(
  clients: StylizeCreatesClients,
  inputs: ReadonlyMap<string, string>,
  options: { concurrency: number; durationMs: number; keyPrefix: string; onCreated?: (jobId: string) => void },
) {
  const { models, styles } = await clients.catalog.getCatalog({ mediaKind: commonV1.MediaKind.IMAGE });
  const model = models.find((m) => m.jobType === 'image.stylize')!;
  const users = [...inputs.keys()];
  return closedLoop(
    async (i) => {
      const user = users[i % users.length]!;
      const { job } = await clients.jobs.createJob(
        jobsV1.CreateJobRequest.fromPartial({
          userId: user,
          idempotencyKey: `${options.keyPrefix}-${i}`,
          jobType: 'image.stylize',
          modelId: model.id,
          styleId: styles[0]!.id,
          inputAssetId: inputs.get(user),
          prompt: 'benchmark cat',
        }),
      );
      options.onCreated?.(job!.id);
    },
    { concurrency: options.concurrency, durationMs: options.durationMs },
  );
}
