import type { FastifyInstance } from 'fastify';
import type { jobsCredentialsV1 } from '@atelier/contracts';
import { PROVIDER_CODES } from '@atelier/job-types';
import { callerOf } from '../auth/authenticate.js';
import type { GatewayContext } from '../gateway-context.js';
import { idParam, object, responses, uuid } from '../http/schemas.js';

const dateTime = { type: 'string', format: 'date-time' } as const;

const credentialSchema = object({
  id: uuid,
  providerCode: { type: 'string', enum: [...PROVIDER_CODES] },
  label: { type: 'string' },
  keyHint: { type: 'string', description: "the key's last four characters" },
  createdAt: dateTime,
  lastRefusedAt: { type: ['string', 'null'], format: 'date-time', description: 'the last time the vendor refused this key for a job' },
});

const toCredentialDto = (credential: jobsCredentialsV1.ProviderCredential) => ({
  id: credential.id,
  providerCode: credential.providerCode,
  label: credential.label,
  keyHint: credential.keyHint,
  createdAt: credential.createdAt!.toISOString(),
  lastRefusedAt: credential.lastRefusedAt?.toISOString() ?? null,
});

interface CreateCredentialBody {
  providerCode: string;
  label: string;
  apiKey: string;
}

/**
 * /api/v1/me/provider-credentials: a user's own AI vendor keys (docs/credentials.md). The key is
 * write-only: stored sealed by jobs, never answered (only its last four characters), never logged.
 * A job created with `credentialId` runs on that key; the vendor bills its owner, not our budget.
 */
export function registerProviderCredentialRoutes(app: FastifyInstance, { peers }: GatewayContext): void {
  app.post<{ Body: CreateCredentialBody }>(
    '/api/v1/me/provider-credentials',
    {
      schema: {
        operationId: 'createProviderCredential',
        tags: ['credentials'],
        summary: 'Register a vendor API key of your own; the key is never shown again (only its last four characters)',
        description:
          'At most 5 keys per user (409 PROVIDER_CREDENTIAL_LIMIT: delete one first). A bad field is 400 naming it. Use the key for a job with `credentialId` on POST /api/v1/creation/jobs, for a model that allows `user_key`.',
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['providerCode', 'label', 'apiKey'],
          properties: {
            providerCode: { type: 'string', enum: [...PROVIDER_CODES], description: 'the vendor the key is for' },
            label: { type: 'string', minLength: 1, maxLength: 64, description: 'your name for the key' },
            apiKey: {
              type: 'string',
              minLength: 8,
              maxLength: 512,
              pattern: '^[\\x21-\\x7e]+$',
              description: '8–512 printable characters without spaces; write-only',
              writeOnly: true,
            },
          },
        },
        response: responses({ 201: object({ credential: credentialSchema }) }),
      },
    },
    async (request, reply) => {
      const { credential } = await peers.credentials.createProviderCredential({
        userId: callerOf(request).userId,
        providerCode: request.body.providerCode,
        label: request.body.label,
        apiKey: request.body.apiKey,
      });
      reply.code(201);
      return { credential: toCredentialDto(credential!) };
    },
  );

  app.get(
    '/api/v1/me/provider-credentials',
    {
      schema: {
        operationId: 'listProviderCredentials',
        tags: ['credentials'],
        summary: 'Your vendor keys, newest first (never the keys themselves)',
        response: responses({
          200: object({
            items: { type: 'array', items: credentialSchema },
            maxItems: { type: 'integer', description: 'how many keys you may have at once' },
          }),
        }),
      },
    },
    async (request) => {
      const { credentials, maxCredentials } = await peers.credentials.listProviderCredentials({ userId: callerOf(request).userId });
      return { items: credentials.map(toCredentialDto), maxItems: maxCredentials };
    },
  );

  app.delete<{ Params: { credentialId: string } }>(
    '/api/v1/me/provider-credentials/:credentialId',
    {
      schema: {
        operationId: 'deleteProviderCredential',
        tags: ['credentials'],
        summary: 'Delete a vendor key of yours: its sealed key is destroyed; a job still waiting to run with it fails (CREDENTIAL_REVOKED)',
        params: idParam('credentialId'),
        response: responses({ 200: object({ deleted: { type: 'boolean', const: true } }) }),
      },
    },
    async (request) => {
      await peers.credentials.deleteProviderCredential({ userId: callerOf(request).userId, credentialId: request.params.credentialId });
      return { deleted: true };
    },
  );
}
