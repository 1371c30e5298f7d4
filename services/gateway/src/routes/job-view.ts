import type { jobsV1, mediaV1 } from '@atelier/contracts';
import { ExpiringCache } from '@atelier/caching';
import type { PromiseClient } from '@atelier/grpc';
import { jobDto } from '../mappers/dtos.js';

interface DownloadLink {
  url: string;
  expiresAt: Date | undefined;
}

/** Longest a looked-up output URL is reused, and how many are kept. */
const OUTPUT_LINK_MAX_AGE_MS = 30_000;
const OUTPUT_LINK_CACHE_SIZE = 10_000;

/**
 * Jobs as the app sees them, with a download URL of the output once the job succeeded. Apps
 * poll a job every second or two, so the output's presigned URL is looked up in media once and
 * reused for up to 30 s (never past half of its remaining life): the URL itself stays valid for
 * minutes anyway, so reuse grants nothing a client did not already hold. Keyed by caller too, so
 * one user's lookup never answers another's.
 */
export class JobViews {
  private readonly outputLinks = new ExpiringCache<string, DownloadLink>(OUTPUT_LINK_CACHE_SIZE);

  constructor(private readonly media: PromiseClient<mediaV1.MediaServiceClient>) {}

  async view(job: jobsV1.Job, callerUserId: string) {
    if (!job.outputAssetId) return jobDto(job);
    return jobDto(job, await this.outputLink(job.outputAssetId, callerUserId));
  }

  private async outputLink(assetId: string, callerUserId: string): Promise<DownloadLink | undefined> {
    const key = `${callerUserId}/${assetId}`;
    const cached = this.outputLinks.get(key);
    if (cached) return cached;
    const output = await this.media.getAsset({ assetId, callerUserId }).catch(() => undefined);
    if (!output?.downloadUrl) return undefined;
    const link = { url: output.downloadUrl, expiresAt: output.downloadExpiresAt };
    const now = Date.now();
    const halfLifeLeft = output.downloadExpiresAt ? (output.downloadExpiresAt.getTime() - now) / 2 : 0;
    this.outputLinks.set(key, link, now + Math.min(OUTPUT_LINK_MAX_AGE_MS, halfLifeLeft));
    return link;
  }
}
