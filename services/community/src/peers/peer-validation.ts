import { jobsV1, mediaV1 } from '@atelier/contracts';
import { AppError, ErrorCode, FailedPreconditionError, NotFoundError, peerFailure } from '@atelier/errors';
import type { PromiseClient } from '@atelier/grpc';
import { requireOutputAttached } from '../domain/generation-rules.js';

const GONE: ReadonlySet<mediaV1.AssetStatus> = new Set([mediaV1.AssetStatus.DELETED, mediaV1.AssetStatus.DELETING]);

/**
 * The services whose ids a post references (SPEC §1): no foreign key crosses schemas, so media
 * and generation jobs are checked where they live, when a post is written.
 */
export interface Peers {
  media: PromiseClient<mediaV1.MediaServiceClient>;
  jobs: PromiseClient<jobsV1.JobsServiceClient>;
}

/** A generation job as far as a post cares: it succeeded, and this is its image. */
export interface GenerationJob {
  id: string;
  outputAssetId: string | null;
  petId: string | null;
  styleCode: string | undefined;
}

const POSTABLE_PURPOSES: ReadonlySet<mediaV1.AssetPurpose> = new Set([mediaV1.AssetPurpose.POST_IMAGE, mediaV1.AssetPurpose.AI_OUTPUT]);

function isCode(error: unknown, ...codes: ErrorCode[]): boolean {
  return error instanceof AppError && codes.includes(error.code);
}

/**
 * Each asset must be the author's and live (else NOT_FOUND MEDIA_NOT_FOUND, the same answer as
 * for an id that does not exist, so another user's asset is never revealed), ready (else
 * MEDIA_NOT_READY) and uploaded for a post or generated (else MEDIA_WRONG_PURPOSE). Lookups run
 * in parallel; the first asset in display order that breaks a rule is the one reported, and
 * `field` names the request's list.
 */
export async function checkPostMedia(peers: Peers, authorUserId: string, assetIds: readonly string[], field: string): Promise<void> {
  const assets = await Promise.all(
    assetIds.map((assetId) =>
      peers.media.getAssetInternal({ assetId, includeDownloadUrl: false }).then(
        (response) => response.asset ?? null,
        (error: unknown) => {
          if (isCode(error, ErrorCode.NOT_FOUND)) return null;
          throw peerFailure('media', error);
        },
      ),
    ),
  );
  for (const asset of assets) {
    // Deleted, or being deleted by its owner (media's DeleteOwnAsset): gone for a new post.
    if (!asset || asset.ownerUserId !== authorUserId || GONE.has(asset.status)) {
      throw new NotFoundError('media', { field });
    }
    if (asset.status !== mediaV1.AssetStatus.READY) {
      throw new FailedPreconditionError('MEDIA_NOT_READY', `the image ${asset.id} has not finished uploading`);
    }
    if (!POSTABLE_PURPOSES.has(asset.purpose)) {
      throw new FailedPreconditionError(
        'MEDIA_WRONG_PURPOSE',
        `the image ${asset.id} was not uploaded for a post; attach post_image uploads or generated images`,
      );
    }
  }
}

/**
 * The author's own succeeded job. Jobs answers NOT_FOUND for another user's job as for a missing
 * one; `whenMissing` says how the caller reports that (a referenced job is a broken rule, the
 * job a draft is made from is the thing not found).
 */
export async function findSucceededJob(
  peers: Peers,
  authorUserId: string,
  jobId: string,
  whenMissing: () => AppError = () =>
    new FailedPreconditionError('GENERATION_JOB_NOT_FOUND', 'the generation job does not exist for this author'),
): Promise<GenerationJob> {
  const job = await peers.jobs.getJob({ jobId, userId: authorUserId }).then(
    (response) => response.job,
    (error: unknown) => {
      if (isCode(error, ErrorCode.NOT_FOUND)) throw whenMissing();
      throw peerFailure('jobs', error);
    },
  );
  if (!job) throw whenMissing();
  if (job.status !== jobsV1.JobStatus.SUCCEEDED) {
    throw new FailedPreconditionError('GENERATION_JOB_NOT_SUCCEEDED', 'the generation job has not succeeded (yet)');
  }
  return { id: job.id, outputAssetId: job.outputAssetId ?? null, petId: job.petId ?? null, styleCode: job.snapshot?.styleCode };
}

export interface PostReferences {
  mediaAssetIds: readonly string[];
  /** The request field that listed the media, for refusals. */
  mediaField: string;
  generationJobId: string | null;
}

/**
 * Everything a post's references must satisfy: the media rules and, when the post names a
 * generation job, the job rules and that the job's output is among the media. Media and job
 * are looked up in parallel; a media refusal is reported before a job refusal, so the answer
 * does not depend on which peer was faster.
 */
export async function checkPostReferences(peers: Peers, authorUserId: string, references: PostReferences): Promise<void> {
  const [media, job] = await Promise.allSettled([
    checkPostMedia(peers, authorUserId, references.mediaAssetIds, references.mediaField),
    references.generationJobId === null ? null : findSucceededJob(peers, authorUserId, references.generationJobId),
  ]);
  if (media.status === 'rejected') throw media.reason;
  if (job.status === 'rejected') throw job.reason;
  if (job.value) requireOutputAttached(job.value.outputAssetId, references.mediaAssetIds);
}
