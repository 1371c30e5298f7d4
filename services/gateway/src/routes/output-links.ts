import type { mediaV1 } from '@atelier/contracts';
import { ExpiringCache } from '@atelier/caching';
import type { PromiseClient } from '@atelier/grpc';

/** A presigned download URL of a job's output, as media minted it. */
export interface OutputLink {
  url: string;
  expiresAt: Date | undefined;
}

/** Longest a looked-up output URL is reused, and how many are kept. */
const OUTPUT_LINK_MAX_AGE_MS = 30_000;
const OUTPUT_LINK_CACHE_SIZE = 10_000;

/**
 * Until when a URL minted now, valid until `expiresAt`, may be handed out again: at most 30 s,
 * and never past half of its remaining life, so that every URL a client receives still has at
 * least half of the life it had when media minted it — never an expired or nearly expired one,
 * however long the job view around it is remembered. A URL without an expiry is not reused.
 */
export function reuseDeadline(expiresAt: Date | undefined, now: number): number {
  const halfLifeLeft = expiresAt ? (expiresAt.getTime() - now) / 2 : 0;
  return now + Math.min(OUTPUT_LINK_MAX_AGE_MS, halfLifeLeft);
}

/**
 * Download URLs of job outputs. Apps poll a job every second or two, so a URL is looked up in
 * media once and reused within `reuseDeadline`: the URL stays valid for minutes anyway, so reuse
 * grants nothing a client did not already hold. Keyed by caller too, so one user's lookup never
 * answers another's. A failed lookup (the asset deleted, media down) gives no URL and is not
 * remembered.
 */
export class OutputLinks {
  private readonly links = new ExpiringCache<string, OutputLink>(OUTPUT_LINK_CACHE_SIZE);

  constructor(private readonly media: PromiseClient<mediaV1.MediaServiceClient>) {}

  /**
   * Takes a URL media minted for the caller's asset elsewhere (a gallery page, ListAssets), so a
   * later look-up of the same asset (its job's view) reuses it under the same deadline rule
   * instead of asking media again. Returns the link as the API hands it out.
   */
  remember(assetId: string, callerUserId: string, link: OutputLink): OutputLink {
    this.links.set(`${callerUserId}/${assetId}`, link, reuseDeadline(link.expiresAt, Date.now()));
    return link;
  }

  /** Drops the caller's URL of an asset they deleted: a job view stops offering it at once on this replica. */
  forget(assetId: string, callerUserId: string): void {
    this.links.delete(`${callerUserId}/${assetId}`);
  }

  /** The URL now, if there is one; a cached one only while it is within its reuse deadline. */
  async get(assetId: string, callerUserId: string): Promise<OutputLink | undefined> {
    const key = `${callerUserId}/${assetId}`;
    const cached = this.links.get(key);
    if (cached) return cached;
    const output = await this.media.getAsset({ assetId, callerUserId }).catch(() => undefined);
    if (!output?.downloadUrl) return undefined;
    const link = { url: output.downloadUrl, expiresAt: output.downloadExpiresAt };
    this.links.set(key, link, reuseDeadline(link.expiresAt, Date.now()));
    return link;
  }
}
