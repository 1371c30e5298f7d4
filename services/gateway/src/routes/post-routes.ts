import type { FastifyInstance } from 'fastify';
import { communityV1 } from '@atelier/contracts';
import { MAX_MEDIA_PER_POST, MAX_POST_CONTENT_LENGTH, MAX_POST_TITLE_LENGTH } from '@atelier/validation';
import { callerOf } from '../auth/authenticate.js';
import type { GatewayContext } from '../gateway-context.js';
import { MAX_VERSION, idParam, idempotencyHeaders, object, page, pageQuery, ref, responses, uuid } from '../http/schemas.js';
import { toPostDto } from './dto-mapper.js';
import { postCategories, postStatuses } from '../http/api-enums.js';

const mediaIds = { type: 'array', items: uuid, maxItems: MAX_MEDIA_PER_POST, uniqueItems: true } as const;

interface CreatePostBody {
  category: string;
  title: string;
  content?: string;
  status?: 'draft' | 'published';
  mediaAssetIds?: string[];
  petId?: string;
  generationJobId?: string;
}

interface UpdatePostBody {
  expectedVersion: number;
  title?: string;
  content?: string;
  category?: string;
  status?: 'draft' | 'published';
  petId?: string;
  mediaAssetIds?: string[];
}

export function registerPostRoutes(app: FastifyInstance, { peers }: GatewayContext): void {
  app.post<{ Body: CreatePostBody; Headers: { 'idempotency-key': string } }>(
    '/api/v1/posts',
    {
      schema: {
        operationId: 'createPost',
        tags: ['community'],
        summary: 'Create a post (201 new, 200 replay of the same Idempotency-Key)',
        headers: idempotencyHeaders,
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['category', 'title'],
          properties: {
            category: { type: 'string', enum: postCategories.words },
            title: { type: 'string', minLength: 1, maxLength: MAX_POST_TITLE_LENGTH },
            content: { type: 'string', maxLength: MAX_POST_CONTENT_LENGTH },
            status: { type: 'string', enum: ['draft', 'published'], default: 'draft' },
            mediaAssetIds: mediaIds,
            petId: uuid,
            generationJobId: uuid,
          },
        },
        response: responses({ 200: object({ post: ref('Post') }), 201: object({ post: ref('Post') }) }),
      },
    },
    async (request, reply) => {
      const body = request.body;
      const { post, created } = await peers.community.createPost({
        authorUserId: callerOf(request).userId,
        idempotencyKey: request.headers['idempotency-key'],
        category: postCategories.fromApi(body.category)!,
        title: body.title,
        content: body.content ?? '',
        status: postStatuses.fromApi(body.status ?? 'draft')!,
        mediaAssetIds: body.mediaAssetIds ?? [],
        petId: body.petId,
        generationJobId: body.generationJobId,
      });
      reply.code(created ? 201 : 200);
      return { post: toPostDto(post!, callerOf(request).userId) };
    },
  );

  app.patch<{ Params: { postId: string }; Body: UpdatePostBody }>(
    '/api/v1/posts/:postId',
    {
      schema: {
        operationId: 'updatePost',
        tags: ['community'],
        summary: 'Change a post; expectedVersion must be the current version (409 otherwise). status published publishes a draft',
        params: idParam('postId'),
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['expectedVersion'],
          minProperties: 2,
          properties: {
            expectedVersion: { type: 'integer', minimum: 1, maximum: MAX_VERSION },
            title: { type: 'string', minLength: 1, maxLength: MAX_POST_TITLE_LENGTH },
            content: { type: 'string', maxLength: MAX_POST_CONTENT_LENGTH },
            category: { type: 'string', enum: postCategories.words },
            status: { type: 'string', enum: ['draft', 'published'] },
            petId: uuid,
            mediaAssetIds: mediaIds,
          },
        },
        response: responses({ 200: object({ post: ref('Post') }) }),
      },
    },
    async (request) => {
      const body = request.body;
      const { post } = await peers.community.updatePost({
        postId: request.params.postId,
        authorUserId: callerOf(request).userId,
        expectedVersion: body.expectedVersion,
        title: body.title,
        content: body.content,
        category: body.category ? postCategories.fromApi(body.category)! : communityV1.PostCategory.UNSPECIFIED,
        status: body.status ? postStatuses.fromApi(body.status)! : communityV1.PostStatus.UNSPECIFIED,
        petId: body.petId,
        media: body.mediaAssetIds ? { assetIds: body.mediaAssetIds } : undefined,
      });
      return { post: toPostDto(post!, callerOf(request).userId) };
    },
  );

  app.delete<{ Params: { postId: string } }>(
    '/api/v1/posts/:postId',
    {
      schema: {
        operationId: 'deletePost',
        tags: ['community'],
        summary: 'Delete a post of the caller (soft; idempotent)',
        params: idParam('postId'),
        response: responses({ 200: object({ post: ref('Post') }) }),
      },
    },
    async (request) => {
      const { post } = await peers.community.deletePost({ postId: request.params.postId, authorUserId: callerOf(request).userId });
      return { post: toPostDto(post!, callerOf(request).userId) };
    },
  );

  app.get<{ Params: { postId: string } }>(
    '/api/v1/posts/:postId',
    {
      schema: {
        operationId: 'getPost',
        tags: ['community'],
        summary: 'A published post, or a draft of the caller',
        params: idParam('postId'),
        response: responses({ 200: object({ post: ref('Post') }) }),
      },
    },
    async (request) => {
      const { post } = await peers.community.getPost({ postId: request.params.postId, callerUserId: callerOf(request).userId });
      return { post: toPostDto(post!, callerOf(request).userId) };
    },
  );

  app.get<{ Querystring: { cursor?: string; limit: number } }>(
    '/api/v1/feed',
    {
      schema: {
        operationId: 'listFeed',
        tags: ['community'],
        summary: 'Published posts, newest first',
        querystring: pageQuery(),
        response: responses({ 200: page('Post') }),
      },
    },
    async (request) => {
      const result = await peers.community.listFeed({ pageSize: request.query.limit, pageToken: request.query.cursor ?? '' });
      return { items: result.posts.map((post) => toPostDto(post, callerOf(request).userId)), nextCursor: result.nextPageToken || null };
    },
  );

  app.get<{ Querystring: { status?: string; cursor?: string; limit: number } }>(
    '/api/v1/me/posts',
    {
      schema: {
        operationId: 'listMyPosts',
        tags: ['community'],
        summary: "The caller's own posts, drafts included, newest first",
        querystring: pageQuery({ status: { type: 'string', enum: ['draft', 'published'] } }),
        response: responses({ 200: page('Post') }),
      },
    },
    async (request) => {
      const result = await peers.community.listMyPosts({
        authorUserId: callerOf(request).userId,
        status: request.query.status ? postStatuses.fromApi(request.query.status)! : communityV1.PostStatus.UNSPECIFIED,
        pageSize: request.query.limit,
        pageToken: request.query.cursor ?? '',
      });
      return { items: result.posts.map((post) => toPostDto(post, callerOf(request).userId)), nextCursor: result.nextPageToken || null };
    },
  );
}
