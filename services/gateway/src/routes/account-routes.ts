import type { FastifyInstance } from 'fastify';
import type { commonV1 } from '@atelier/contracts';
import { callerOf } from '../auth/authenticate.js';
import type { GatewayContext } from '../gateway-context.js';
import { jobsV1, mediaV1, communityV1 } from '@atelier/contracts';
import { nullableString, object, ref, responses } from '../http/schemas.js';
import { toAssetDto, toJobDto, toPostDto } from './dto-mapper.js';

/** The services holding a user's data, each deleting its own part when it consumes the deletion event. */
const PARTS = ['jobs', 'media', 'community', 'webhooks'] as const;
const partStatuses = ['pending', 'in_progress', 'completed'] as const;

const deletionSchema = {
  ...object({
    status: {
      type: 'string',
      enum: ['not_requested', 'in_progress', 'completed'],
      description: 'completed once every service has deleted its part',
    },
    requestedAt: { ...nullableString, format: 'date-time' },
    completedAt: { ...nullableString, format: 'date-time', description: 'when the last service finished' },
    parts: {
      type: 'array',
      items: object({
        service: { type: 'string', enum: [...PARTS] },
        status: {
          type: 'string',
          enum: [...partStatuses],
          description: 'pending: the service has not seen the deletion yet (it is down, or the event is on its way)',
        },
        completedAt: { ...nullableString, format: 'date-time' },
        removed: { type: 'integer', minimum: 0, description: 'jobs, assets or posts deleted' },
      }),
    },
  }),
};

/** At most this many of each kind in one export: the answer stays bounded (truncated says when more exist). */
export const EXPORT_MAX_ITEMS = 1_000;
const EXPORT_PAGE = 100;

const exportSchema = object({
  exportedAt: { type: 'string', format: 'date-time' },
  userId: { type: 'string', description: 'the account, as the identity provider names it' },
  jobs: { type: 'array', items: ref('Job') },
  assets: {
    type: 'array',
    items: object({
      asset: ref('Asset'),
      url: { ...nullableString, description: 'short-lived download URL of a ready asset: fetch it at once' },
      urlExpiresAt: { ...nullableString, format: 'date-time' },
    }),
  },
  posts: { type: 'array', items: ref('Post') },
  truncated: { type: 'boolean', description: `true when a kind has more than ${EXPORT_MAX_ITEMS} entries (the newest are exported)` },
});

/** Every page of a listing, up to EXPORT_MAX_ITEMS; `more` when one was left. */
async function collect<T>(page: (token: string) => Promise<{ items: T[]; next: string }>): Promise<{ items: T[]; more: boolean }> {
  const items: T[] = [];
  let token = '';
  do {
    const answer = await page(token);
    items.push(...answer.items);
    token = answer.next;
  } while (token && items.length < EXPORT_MAX_ITEMS);
  return { items: items.slice(0, EXPORT_MAX_ITEMS), more: items.length > EXPORT_MAX_ITEMS || token !== '' };
}

const at = (date: Date | undefined) => date?.toISOString() ?? null;
const partOf = (service: (typeof PARTS)[number], part: commonV1.AccountDeletionPart | undefined) => ({
  service,
  status: part?.completedAt ? 'completed' : part?.started ? 'in_progress' : 'pending',
  completedAt: at(part?.completedAt),
  removed: Number(part?.removed ?? 0),
});

/**
 * DELETE /api/v1/me and GET /api/v1/me/deletion: in-app account deletion (app stores require it).
 * The request is durable at once (jobs records it with its event in one transaction); every
 * service then deletes its part on its own, resuming after a crash; the progress is each
 * service's own answer.
 */
export function registerAccountRoutes(app: FastifyInstance, { peers }: GatewayContext): void {
  async function deletionOf(userId: string) {
    const jobs = await peers.jobs.getAccountDeletion({ userId });
    if (!jobs.deletionId) return { status: 'not_requested', requestedAt: null, completedAt: null, parts: [] };
    const [media, community, webhooks] = await Promise.all([
      peers.media.getAccountDeletion({ userId }),
      peers.community.getAccountDeletion({ userId }),
      peers.webhooks.getAccountDeletion({ userId }),
    ]);
    const parts = [
      partOf('jobs', jobs.jobs),
      partOf('media', media.part),
      partOf('community', community.part),
      partOf('webhooks', webhooks.part),
    ];
    const done = parts.every((part) => part.status === 'completed');
    return {
      status: done ? 'completed' : 'in_progress',
      requestedAt: at(jobs.requestedAt),
      completedAt: done
        ? parts
            .map((part) => part.completedAt!)
            .sort()
            .at(-1)!
        : null,
      parts,
    };
  }

  app.delete<{ Params: Record<string, never> }>(
    '/api/v1/me',
    {
      schema: {
        operationId: 'deleteAccount',
        tags: ['account'],
        summary:
          'Delete the caller’s account and all its data: jobs (in-flight ones cancelled, at the AI vendor too), images, posts, webhook endpoints. Idempotent; 202 with the progress',
        response: responses({ 202: deletionSchema }),
      },
    },
    async (request, reply) => {
      const { userId } = callerOf(request);
      await peers.jobs.requestAccountDeletion({ userId });
      reply.code(202);
      return deletionOf(userId);
    },
  );

  app.get(
    '/api/v1/me/export',
    {
      schema: {
        operationId: 'exportAccount',
        tags: ['account'],
        summary: 'Everything the platform holds of the caller, as JSON: jobs, images (with download URLs) and posts',
        response: responses({ 200: exportSchema }),
      },
    },
    async (request, reply) => {
      const { userId } = callerOf(request);
      const [jobs, assets, posts] = await Promise.all([
        collect(async (pageToken) => {
          const page = await peers.jobs.listJobs({ userId, status: jobsV1.JobStatus.UNSPECIFIED, pageSize: EXPORT_PAGE, pageToken });
          return { items: page.jobs, next: page.nextPageToken };
        }),
        collect(async (cursor) => {
          const page = await peers.media.listAssets({
            ownerUserId: userId,
            purpose: mediaV1.AssetPurpose.UNSPECIFIED,
            pageSize: EXPORT_PAGE,
            cursor,
          });
          return { items: page.items, next: page.nextCursor };
        }),
        collect(async (pageToken) => {
          const page = await peers.community.listMyPosts({
            authorUserId: userId,
            status: communityV1.PostStatus.UNSPECIFIED,
            pageSize: EXPORT_PAGE,
            pageToken,
          });
          return { items: page.posts, next: page.nextPageToken };
        }),
      ]);
      void reply.header('content-disposition', 'attachment; filename="atelier-export.json"').header('cache-control', 'no-store');
      return {
        exportedAt: new Date().toISOString(),
        userId,
        jobs: jobs.items.map((job) => toJobDto(job)),
        assets: assets.items.map(({ asset, downloadUrl, downloadExpiresAt }) => ({
          asset: toAssetDto(asset!),
          url: downloadUrl ?? null,
          urlExpiresAt: downloadExpiresAt?.toISOString() ?? null,
        })),
        posts: posts.items.map((post) => toPostDto(post, userId)),
        truncated: jobs.more || assets.more || posts.more,
      };
    },
  );

  app.get(
    '/api/v1/me/deletion',
    {
      schema: {
        operationId: 'getAccountDeletion',
        tags: ['account'],
        summary: 'How far the deletion of the caller’s account is, service by service',
        response: responses({ 200: deletionSchema }),
      },
    },
    async (request) => deletionOf(callerOf(request).userId),
  );
}
