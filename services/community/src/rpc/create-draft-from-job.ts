import type { communityV1 } from '@atelier/contracts';
import { uuidv7 } from '@atelier/db';
import { FailedPreconditionError, NotFoundError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { requireUserId, requireUuid } from '@atelier/validation';
import type { CommunityContext } from '../community-context.js';
import { DEFAULT_POST_LIMITS } from '../domain/post-limits.js';
import { defaultDraftTitle } from '../domain/draft-title.js';
import { requireContent, requireTitle } from '../domain/post-rules.js';
import { draftFromJobHash } from '../domain/request-hash.js';
import { checkPostMedia, findSucceededJob } from '../peers/peer-validation.js';
import { toPostMessage } from './post-mapper.js';
import { findReplay, insertOrReplay } from './idempotent-insert.js';

type CreateDraftFromJob = Handler<typeof communityV1.CommunityServiceService.createDraftFromJob>;

/** The idempotency key of the one draft an author can make from a job. */
export const draftFromJobKey = (jobId: string) => `draft-from-job:${jobId}`;

/**
 * The one-tap draft: an ai_creation draft of the author's own succeeded job with its output as
 * the only image, the job's pet, and a title from the job's style unless one is given. One per
 * author and job: the key is derived from the job, so a second call (whatever its text) returns
 * the first draft with created=false, also when both race. The job is the subject of this call,
 * so a job that is not the author's is NOT_FOUND (JOB_NOT_FOUND), as in jobs itself.
 */
export function createDraftFromJob({ pool, peers, postLimits = DEFAULT_POST_LIMITS }: CommunityContext): CreateDraftFromJob {
  return async (request) => {
    const authorUserId = requireUserId(request.authorUserId, 'author_user_id');
    const jobId = requireUuid(request.jobId, 'job_id');
    const title = request.title === undefined ? undefined : requireTitle(request.title);
    const content = request.content === undefined ? '' : requireContent(request.content);
    const idempotencyKey = draftFromJobKey(jobId);
    const requestHash = draftFromJobHash(jobId);

    const replay = await findReplay(pool, authorUserId, idempotencyKey, requestHash);
    if (replay) return { post: toPostMessage(replay.row), created: false };

    const job = await findSucceededJob(peers, authorUserId, jobId, () => new NotFoundError('job'));
    if (job.outputAssetId === null) {
      throw new FailedPreconditionError('GENERATION_OUTPUT_MISSING', 'the generation job produced no image to make a draft of');
    }
    const mediaAssetIds = [job.outputAssetId];
    await checkPostMedia(peers, authorUserId, mediaAssetIds, 'job_id');

    const { row, created } = await insertOrReplay(
      pool,
      {
        id: uuidv7(),
        authorUserId,
        idempotencyKey,
        requestHash,
        category: 'ai_creation',
        status: 'draft',
        title: title ?? defaultDraftTitle(job.styleCode),
        content,
        petId: job.petId,
        generationJobId: job.id,
        mediaAssetIds,
      },
      postLimits,
    );
    return { post: toPostMessage(row), created };
  };
}
