import type { communityV1 } from '@atelier/contracts';
import { uuidv7, type SqlPool } from '@atelier/db';
import { FailedPreconditionError, NotFoundError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { requireUserId, requireUuid } from '@atelier/validation';
import type { CommunityContext } from '../community-context.js';
import { DEFAULT_POST_LIMITS } from '../domain/post-limits.js';
import { defaultDraftTitle } from '../domain/draft-title.js';
import { requireContent, requireTitle } from '../domain/post-rules.js';
import { draftFromJobHash } from '../domain/request-hash.js';
import { postOutboxEvents } from '../domain/product-events.js';
import { selectPostByIdempotencyKey } from '../db/post-sql.js';
import { checkPostMedia, findSucceededJob } from '../peers/peer-validation.js';
import { toPostMessage } from './post-mapper.js';
import { insertOrReplay, replayOrRefuse } from './idempotent-insert.js';

type CreateDraftFromJob = Handler<typeof communityV1.CommunityServiceService.createDraftFromJob>;

/**
 * The idempotency key of the author's draft from a job: the first draft's, or — once the one before
 * was deleted — the next one's, derived from the deleted post, so that concurrent taps after a
 * deletion derive the same key and still make one draft.
 */
export const draftFromJobKey = (jobId: string, afterDeletedPostId?: string) =>
  afterDeletedPostId ? `draft-from-job:${jobId}:after:${afterDeletedPostId}` : `draft-from-job:${jobId}`;

/**
 * The author's current post from the job, when it is not deleted, and the key it holds or a new
 * draft would take: follows the keys past every deleted post (one link per draft of this job the
 * author deleted, so the walk is as long as their deletions).
 */
async function currentDraft(pool: SqlPool, authorUserId: string, jobId: string, requestHash: Buffer) {
  let key = draftFromJobKey(jobId);
  for (;;) {
    const row = await selectPostByIdempotencyKey(pool, authorUserId, key);
    if (!row) return { key, live: null };
    if (row.status !== 'deleted') return { key, live: replayOrRefuse(row, requestHash).row };
    key = draftFromJobKey(jobId, row.id);
  }
}

/**
 * The one-tap draft: an ai_creation draft of the author's own succeeded job with its output as
 * the only image, the job's pet, and a title from the job's style unless one is given. One live
 * post per author and job: the key is derived from the job, so a second call (whatever its text)
 * returns the first draft — or the post it was published as — with created=false, also when both
 * race. Once that post was deleted, the next call makes a new draft (created=true): the user
 * tapped "make a post" again; the deleted one stays deleted. The job is the subject of this call,
 * so a job that is not the author's is NOT_FOUND (JOB_NOT_FOUND), as in jobs itself.
 */
export function createDraftFromJob({ pool, peers, productEvents, postLimits = DEFAULT_POST_LIMITS }: CommunityContext): CreateDraftFromJob {
  return async (request) => {
    const authorUserId = requireUserId(request.authorUserId, 'author_user_id');
    const jobId = requireUuid(request.jobId, 'job_id');
    const title = request.title === undefined ? undefined : requireTitle(request.title);
    const content = request.content === undefined ? '' : requireContent(request.content);
    const requestHash = draftFromJobHash(jobId);

    const current = await currentDraft(pool, authorUserId, jobId, requestHash);
    if (current.live) return { post: toPostMessage(current.live), created: false };

    const job = await findSucceededJob(peers, authorUserId, jobId, () => new NotFoundError('job'));
    if (job.outputAssetId === null) {
      throw new FailedPreconditionError('GENERATION_OUTPUT_MISSING', 'the generation job produced no image to make a draft of');
    }
    const mediaAssetIds = [job.outputAssetId];
    await checkPostMedia(peers, authorUserId, mediaAssetIds, 'job_id');

    const draft = {
      authorUserId,
      requestHash,
      category: 'ai_creation',
      status: 'draft',
      title: title ?? defaultDraftTitle(job.styleCode),
      content,
      petId: job.petId,
      generationJobId: job.id,
      mediaAssetIds,
    } as const;
    for (let idempotencyKey = current.key; ;) {
      const { row, created } = await insertOrReplay(
        pool,
        { ...draft, id: uuidv7(), idempotencyKey },
        postLimits,
        postOutboxEvents(productEvents, { created: true, oneTapDraft: true }),
      );
      if (row.status !== 'deleted') return { post: toPostMessage(row), created };
      // A concurrent tap's draft, deleted since we looked: the next draft follows it.
      idempotencyKey = draftFromJobKey(jobId, row.id);
    }
  };
}
