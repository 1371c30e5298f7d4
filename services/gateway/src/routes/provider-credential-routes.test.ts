import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { jobsCredentialsV1 } from '@atelier/contracts';
import { FailedPreconditionError, NotFoundError } from '@atelier/errors';
import type { FastifyInstance } from 'fastify';
import type { GatewayPeers } from '../gateway-context.js';
import { gatewayOverFakePeers } from '../test-support/gateway-over-fake-peers.js';

// /api/v1/me/provider-credentials over a fake of jobs' ProviderCredentialsService: the key is
// write-only, bad input is a 400 naming the field, jobs' refusals keep their codes.
const KEY = 'sk-live-0123456789abcdef';
const stored: jobsCredentialsV1.ProviderCredential = {
  id: '019a0000-0000-7000-8000-0000000c0001',
  userId: 'alice',
  providerCode: 'sim',
  label: 'Work',
  keyHint: 'cdef',
  createdAt: new Date('2026-12-03T10:00:00Z'),
  lastRefusedAt: undefined,
};
const created: jobsCredentialsV1.CreateProviderCredentialRequest[] = [];
let full = false;

const peers = {
  credentials: {
    createProviderCredential: async (request: jobsCredentialsV1.CreateProviderCredentialRequest) => {
      created.push(request);
      if (full)
        throw new FailedPreconditionError('CREDENTIAL_LIMIT_REACHED', 'a user may register at most 5 vendor keys; delete one first');
      return { credential: stored };
    },
    listProviderCredentials: async () => ({ credentials: [stored], maxCredentials: 5 }),
    deleteProviderCredential: async ({ credentialId }: jobsCredentialsV1.DeleteProviderCredentialRequest) => {
      if (credentialId !== stored.id) throw new NotFoundError('provider credential');
      return {};
    },
  },
} as unknown as GatewayPeers;

let app: FastifyInstance;
let alice: string;

beforeAll(async () => {
  const gateway = await gatewayOverFakePeers(peers);
  app = gateway.app;
  alice = await gateway.token('alice');
});

afterAll(async () => {
  await app?.close();
});

beforeEach(() => {
  created.length = 0;
  full = false;
});

const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: Record<string, unknown>) =>
  app.inject({ method, url, headers: { authorization: `Bearer ${alice}` }, payload });

describe('/api/v1/me/provider-credentials', () => {
  it('registers a key for the token user and answers it without the key', async () => {
    const answer = await call('POST', '/api/v1/me/provider-credentials', { providerCode: 'sim', label: 'Work', apiKey: KEY });
    expect(answer.statusCode).toBe(201);
    expect(created).toEqual([{ userId: 'alice', providerCode: 'sim', label: 'Work', apiKey: KEY }]);
    expect(answer.json()).toEqual({
      credential: {
        id: stored.id,
        providerCode: 'sim',
        label: 'Work',
        keyHint: 'cdef',
        createdAt: '2026-12-03T10:00:00.000Z',
        lastRefusedAt: null,
      },
    });
    expect(answer.body).not.toContain(KEY);
  });

  it.each([
    [{ providerCode: 'sim', label: 'Work' }, 'apiKey'],
    [{ providerCode: 'sim', label: '', apiKey: KEY }, 'label'],
    [{ providerCode: 'sim', label: 'x'.repeat(65), apiKey: KEY }, 'label'],
    [{ providerCode: 'acme', label: 'Work', apiKey: KEY }, 'providerCode'],
    [{ providerCode: 'sim', label: 'Work', apiKey: 'short' }, 'apiKey'],
    [{ providerCode: 'sim', label: 'Work', apiKey: 'with a space 123' }, 'apiKey'],
    [{ providerCode: 'sim', label: 'Work', apiKey: 'k'.repeat(513) }, 'apiKey'],
  ])('refuses %j with 400 naming %s, before asking jobs', async (body, field) => {
    const answer = await call('POST', '/api/v1/me/provider-credentials', body);
    expect(answer.statusCode).toBe(400);
    expect(answer.json().error.code).toBe(40000);
    expect(answer.body).toContain(field);
    if ('apiKey' in body) expect(answer.body).not.toContain(body.apiKey);
    expect(created).toEqual([]);
  });

  it('answers the limit with 409 40930 PROVIDER_CREDENTIAL_LIMIT', async () => {
    full = true;
    const answer = await call('POST', '/api/v1/me/provider-credentials', { providerCode: 'sim', label: 'Sixth', apiKey: KEY });
    expect(answer.statusCode).toBe(409);
    expect(answer.json().error).toMatchObject({ code: 40930, name: 'PROVIDER_CREDENTIAL_LIMIT' });
    expect(answer.body).not.toContain(KEY);
  });

  it('lists and deletes; an unknown key is 404 40430', async () => {
    const listed = await call('GET', '/api/v1/me/provider-credentials');
    expect(listed.statusCode).toBe(200);
    expect(listed.json()).toMatchObject({ items: [{ id: stored.id, keyHint: 'cdef' }], maxItems: 5 });
    expect((await call('DELETE', `/api/v1/me/provider-credentials/${stored.id}`)).json()).toEqual({ deleted: true });
    const missing = await call('DELETE', '/api/v1/me/provider-credentials/019a0000-0000-7000-8000-0000000c0009');
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error).toMatchObject({ code: 40430, name: 'PROVIDER_CREDENTIAL_NOT_FOUND' });
  });
});
