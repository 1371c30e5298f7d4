import type { jobsV1 } from '@atelier/contracts';
import type { GatewayPeers } from '../gateway-context.js';
import { jobDto } from '../mappers/dtos.js';

/** A job as the app sees it, with a fresh download URL of its output once it succeeded. */
export async function jobView(peers: GatewayPeers, job: jobsV1.Job, callerUserId: string) {
  if (!job.outputAssetId) return jobDto(job);
  const output = await peers.media.getAsset({ assetId: job.outputAssetId, callerUserId }).catch(() => undefined);
  return jobDto(job, output?.downloadUrl ? { url: output.downloadUrl, expiresAt: output.downloadExpiresAt } : undefined);
}
