import type { FastifyInstance } from 'fastify';
import { jobsV1 } from '@atelier/contracts';
import { MAX_IMAGE_SIDE_PX, MIN_IMAGE_SIDE_PX } from '@atelier/images';
import { isOperatorOnlyJobType, JOB_TYPE_PATTERN_SOURCE, START_WITHIN_SECONDS } from '@atelier/job-types';
import { MAX_NEGATIVE_PROMPT_LENGTH, MAX_POST_CONTENT_LENGTH, MAX_POST_TITLE_LENGTH, MAX_PROMPT_LENGTH } from '@atelier/validation';
import { callerOf } from '../auth/authenticate.js';
import { roleAllows } from '../auth/operator-roles.js';
import type { GatewayContext } from '../gateway-context.js';
import { HttpError } from '../http/http-error.js';
import { idParam, idempotencyHeaders, object, page, pageQuery, ref, responses, uuid } from '../http/schemas.js';
import { toPostDto } from './dto-mapper.js';
import { jobStatuses } from '../http/api-enums.js';
import type { FinishedJobCache } from './finished-job-cache.js';
import type { QueuedJobViews } from './queued-job-views.js';
import { localizedJobView } from '../i18n/localize-messages.js';
import { localeOf } from '../i18n/request-locale.js';

interface CreateJobBody {
  jobType: string;
  modelId?: string;
  styleId?: string;
  inputAssetId?: string;
  petId?: string;
  prompt?: string;
  negativePrompt?: string;
  width?: number;
  height?: number;
  parameters?: Record<string, unknown>;
  startWithinSeconds?: number;
  credentialId?: string;
}

export function registerJobRoutes(
  app: FastifyInstance,
  { peers }: GatewayContext,
  finishedJobs: FinishedJobCache,
  queuedJobs: QueuedJobViews,
): void {
  app.post<{ Body: CreateJobBody; Headers: { 'idempotency-key': string } }>(
    '/api/v1/creation/jobs',
    {
      schema: {
        operationId: 'createGenerationJob',
        tags: ['creation'],
        summary: 'Submit a generation job (201 new, 200 replay of the same Idempotency-Key)',
        description:
          "petId is optional: when given, the app's pet service must confirm that the caller owns the pet or that its owner shared it with them, " +
          'before anything is written. Otherwise 404 with code 40401 PET_NOT_FOUND (an unknown pet and another user’s answer alike); ' +
          'when the pet service is unreachable or does not answer in time, 503 with Retry-After (retry with the same Idempotency-Key); nothing is written either way.',
        headers: idempotencyHeaders,
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['jobType'],
          properties: {
            jobType: { type: 'string', pattern: JOB_TYPE_PATTERN_SOURCE, examples: ['image.stylize'] },
            modelId: uuid,
            styleId: uuid,
            inputAssetId: uuid,
            petId: { ...uuid, description: "the pet the creation is of: the caller's own, or one shared with them (else 404 40401)" },
            prompt: { type: 'string', maxLength: MAX_PROMPT_LENGTH },
            negativePrompt: { type: 'string', maxLength: MAX_NEGATIVE_PROMPT_LENGTH },
            width: { type: 'integer', minimum: MIN_IMAGE_SIDE_PX, maximum: MAX_IMAGE_SIDE_PX },
            height: { type: 'integer', minimum: MIN_IMAGE_SIDE_PX, maximum: MAX_IMAGE_SIDE_PX },
            parameters: { type: 'object', additionalProperties: true, maxProperties: 32 },
            startWithinSeconds: {
              type: 'integer',
              minimum: START_WITHIN_SECONDS.min,
              maximum: START_WITHIN_SECONDS.max,
              description:
                'Start within this many seconds or not at all: a job no worker started by then is cancelled with error ' +
                'START_DEADLINE_EXCEEDED — never sent to the AI vendor, not charged, not counted by the daily quota. ' +
                'Binds the first start only (a job retried after a failed attempt runs on). Part of the idempotent request. ' +
                'Absent: the job waits as long as it takes.',
              examples: [30],
            },
            credentialId: {
              ...uuid,
              description:
                "Run on a vendor key of your own (POST /api/v1/me/provider-credentials): yours, not deleted, for the model's provider, " +
                'of a model that allows user_key — else 404 PROVIDER_CREDENTIAL_NOT_FOUND, 422 CREDENTIAL_PROVIDER_MISMATCH or ' +
                "CREDENTIAL_MODE_NOT_ALLOWED. The vendor bills the key's owner. Absent: the platform's key. Part of the idempotent request.",
            },
          },
          examples: [
            {
              jobType: 'image.stylize',
              modelId: '019a3c1e-7f00-7000-8000-00000000b001',
              styleId: '019a3c1e-7f00-7000-8000-00000000c001',
              inputAssetId: '019a3c1e-7f00-7000-8000-00000000d001',
              petId: '019a3c1e-7f00-7000-8000-00000000f001',
              prompt: 'my cat as a renaissance painting',
              parameters: { strength: 0.7 },
              startWithinSeconds: 30,
            },
          ],
        },
        response: responses({ 200: object({ job: ref('Job') }), 201: object({ job: ref('Job') }) }),
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      const body = request.body;
      if (isOperatorOnlyJobType(body.jobType) && !roleAllows(caller.operatorRole, 'operator'))
        throw new HttpError('FORBIDDEN', `${body.jobType} jobs are for operators (role operator or higher)`);
      const { job, created } = await peers.jobs.createJob(
        jobsV1.CreateJobRequest.fromPartial({
          userId: caller.userId,
          idempotencyKey: request.headers['idempotency-key'],
          jobType: body.jobType,
          modelId: body.modelId,
          styleId: body.styleId,
          inputAssetId: body.inputAssetId,
          petId: body.petId,
          prompt: body.prompt ?? '',
          negativePrompt: body.negativePrompt ?? '',
          width: body.width,
          height: body.height,
          parameters: body.parameters ?? {},
          startWithinSeconds: body.startWithinSeconds,
          credentialId: body.credentialId,
        }),
      );
      // Not followed from here: a watch per create would cost jobs a stream and its opening read
      // for every job, polled or not; the first read follows it.
      reply.code(created ? 201 : 200);
      return { job: localizedJobView(await finishedJobs.view(job!, caller.userId), localeOf(request)) };
    },
  );

  app.get<{ Querystring: { status?: string; cursor?: string; limit: number } }>(
    '/api/v1/creation/jobs',
    {
      schema: {
        operationId: 'listGenerationJobs',
        tags: ['creation'],
        summary: "The caller's jobs, newest first",
        querystring: pageQuery({ status: { type: 'string', enum: jobStatuses.words } }),
        response: responses({ 200: page('Job') }),
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const result = await peers.jobs.listJobs({
        userId: caller.userId,
        status: request.query.status ? jobStatuses.fromApi(request.query.status)! : jobsV1.JobStatus.UNSPECIFIED,
        pageSize: request.query.limit,
        pageToken: request.query.cursor ?? '',
      });
      return {
        items: (await Promise.all(result.jobs.map((job) => finishedJobs.view(job, caller.userId)))).map((view) =>
          localizedJobView(view, localeOf(request)),
        ),
        nextCursor: result.nextPageToken || null,
      };
    },
  );

  app.get<{ Params: { jobId: string } }>(
    '/api/v1/creation/jobs/:jobId',
    {
      schema: {
        operationId: 'getGenerationJob',
        tags: ['creation'],
        summary: 'A job: status, progress, queue position, attempts, error, timings and output URL',
        description:
          'Poll this about every 1.5 s while the job is queued or running (or follow GET /api/v1/creation/jobs/{jobId}/events, ' +
          'which pushes every change), and stop once its status is succeeded, failed or cancelled. `outputUrl` is a presigned ' +
          'GET URL that expires (`outputUrlExpiresAt`): show or download the image with it, never store it — read the job ' +
          'again for a fresh one, or keep `outputAssetId`. While the job is queued, `queuePosition` may be up to 2 s old ' +
          '(a change of its status shows within milliseconds of jobs making it).',
        params: idParam('jobId'),
        response: responses({ 200: object({ job: ref('Job') }) }),
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const remembered = finishedJobs.remembered(request.params.jobId, caller.userId);
      if (remembered) return { job: localizedJobView(await remembered, localeOf(request)) };
      const followed = queuedJobs.current(request.params.jobId, caller.userId);
      if (followed) return { job: localizedJobView(await finishedJobs.view(followed, caller.userId), localeOf(request)) };
      const { job } = await peers.jobs.getJob({ jobId: request.params.jobId, userId: caller.userId }).catch((error: unknown) => {
        queuedJobs.forget(request.params.jobId);
        throw error;
      });
      queuedJobs.answered(job!, caller.userId);
      return { job: localizedJobView(await finishedJobs.view(job!, caller.userId), localeOf(request)) };
    },
  );

  app.post<{ Params: { jobId: string } }>(
    '/api/v1/creation/jobs/:jobId/cancel',
    {
      schema: {
        operationId: 'cancelGenerationJob',
        tags: ['creation'],
        summary: 'Cancel a queued or running job (a finished one is 422 42206)',
        description:
          'A queued job is cancelled at once; a running one is stopped at the worker and at the AI vendor within a second. ' +
          'The answer is the job as it is then (cancelled). A job that already succeeded, failed or was cancelled is refused ' +
          'with 422 42206 GENERATION_RULE_VIOLATION.',
        params: idParam('jobId'),
        response: responses({ 200: object({ job: ref('Job') }) }),
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const { job } = await peers.jobs.cancelJob({ jobId: request.params.jobId, userId: caller.userId });
      queuedJobs.answered(job!, caller.userId);
      return { job: localizedJobView(await finishedJobs.view(job!, caller.userId), localeOf(request)) };
    },
  );

  app.post<{ Params: { jobId: string }; Body: { title?: string; content?: string } | undefined }>(
    '/api/v1/creation/jobs/:jobId/draft',
    {
      schema: {
        operationId: 'createDraftFromJob',
        tags: ['creation', 'community'],
        summary:
          "One tap: an ai_creation draft post with the job's output (201 new; 200 the existing draft, or the post it was published as; after that post was deleted, a new draft, 201)",
        params: idParam('jobId'),
        body: {
          type: ['object', 'null'],
          additionalProperties: false,
          properties: {
            title: { type: 'string', minLength: 1, maxLength: MAX_POST_TITLE_LENGTH },
            content: { type: 'string', maxLength: MAX_POST_CONTENT_LENGTH },
          },
        },
        response: responses({ 200: object({ post: ref('Post') }), 201: object({ post: ref('Post') }) }),
      },
    },
    async (request, reply) => {
      const { post, created } = await peers.community.createDraftFromJob({
        authorUserId: callerOf(request).userId,
        jobId: request.params.jobId,
        title: request.body?.title,
        content: request.body?.content,
      });
      reply.code(created ? 201 : 200);
      return { post: toPostDto(post!, callerOf(request).userId) };
    },
  );
}
