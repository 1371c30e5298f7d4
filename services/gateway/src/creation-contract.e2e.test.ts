import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MobileApi, startTestPlatform, type ApiAnswer, type TestPlatform } from '@atelier/testing';
import { ApiError } from './http/error-codes.js';
import { OPERATION_ERRORS } from './http/operation-errors.js';
import { testTokenKey } from './test-support/gateway-harness.js';

// The mobile app's contract, to the letter: the evaluation's API table (seed 001 §12.1) — its five
// creation operations, their operationIds under the tag `creation`, and every status/code pair it
// lists for each — held against the document the gateway serves and against the real platform,
// pair by pair. What the platform answers beyond the table is listed in DEPARTURES, each with its
// reason, and in docs/api.md ("The creation API, to the letter").

type Pair = readonly [status: number, code: number];
interface TableRoute {
  method: 'GET' | 'POST';
  path: string;
  pairs: readonly Pair[];
}

/** The evaluation's table (§12.1), route by route, as the mobile team generates its client from it. */
const EVALUATION_TABLE: Readonly<Record<string, TableRoute>> = {
  getCreationCatalog: {
    method: 'GET',
    path: '/api/v1/creation/catalog',
    pairs: [
      [400, 40000],
      [401, 40101],
    ],
  },
  createGenerationJob: {
    method: 'POST',
    path: '/api/v1/creation/jobs',
    pairs: [
      [400, 40000],
      [401, 40101],
      [404, 40405],
      [404, 40401],
      [409, 40905],
      [422, 42203],
      [422, 42206],
      [429, 42900],
    ],
  },
  listGenerationJobs: {
    method: 'GET',
    path: '/api/v1/creation/jobs',
    pairs: [
      [400, 40000],
      [401, 40101],
    ],
  },
  getGenerationJob: {
    method: 'GET',
    path: '/api/v1/creation/jobs/{jobId}',
    pairs: [
      [401, 40101],
      [404, 40407],
    ],
  },
  cancelGenerationJob: {
    method: 'POST',
    path: '/api/v1/creation/jobs/{jobId}/cancel',
    pairs: [
      [401, 40101],
      [404, 40407],
      [422, 42206],
    ],
  },
};

/**
 * What the platform answers beyond the table, by code, with the reason; the status of each is one
 * the table already uses for that kind of answer or a transport-level one every route shares.
 */
const DEPARTURES: Readonly<Record<number, string>> = {
  40102: 'an expired token is told apart from a missing or bad one (401 like 40101), so the app refreshes instead of signing out',
  40103: 'a token without an expiry is refused (401 like 40101)',
  40301: 'system.* job types are the operators’ probes; a user who names one is refused',
  40302: 'an account being deleted creates nothing',
  42902: 'the monthly allowance, beside the daily one (429 like 42900), so the app can say which ran out',
  42920: 'every route is rate limited per account and per address',
  50000: 'an unexpected failure (the evaluation reuses 50000)',
  50300: 'a service or the pet directory is down: retry after Retry-After (the evaluation reuses 50300)',
  50301: 'the model’s provider spent today’s budget (503 like 50300): retry after Retry-After, the next UTC day',
  40000: 'getGenerationJob and cancelGenerationJob refuse a jobId that is not a UUID before any lookup',
  40430: "a credentialId that is not the caller's live vendor key (someone else's, deleted or unknown: one answer)",
  42230: 'a credentialId for a model that does not allow user keys',
  42231: "a credentialId of another provider than the model's",
  42232: "no credentialId for a model that runs only on users' own keys",
};

const codeName = (code: number) => Object.entries(ApiError).find(([, error]) => error.code === code)?.[0];

type Operation = {
  operationId?: string;
  tags?: string[];
  responses: Record<string, { content?: Record<string, { schema: ErrorSchema }> }>;
};
type ErrorSchema = { properties: { error: { properties: { code: { enum: number[] } } } } };
let document: { paths: Record<string, Record<string, Operation>> };

let platform: TestPlatform;
let api: MobileApi;
let stranger: MobileApi;
let admin: string;
let expiredToken: string;
let sign: (subject: string) => Promise<string>;

beforeAll(async () => {
  const key = await testTokenKey();
  sign = (subject) => key.sign(subject);
  const user = `contract-${process.pid}`;
  const seed = [
    { id: PETS.own, ownerUserId: user, sharedWith: [] },
    { id: PETS.strangers, ownerUserId: `contract-stranger-${process.pid}`, sharedWith: [] },
  ];
  platform = await startTestPlatform({
    gateway: key.gatewayEnv,
    workers: 1,
    jobsEnv: { QUOTA_MAX_IN_FLIGHT: '2' },
    petDirectoryEnv: { PET_DIRECTORY_SEED: JSON.stringify(seed) },
  });
  api = new MobileApi(platform.gatewayUrl!, await key.sign(user));
  stranger = api.as(await key.sign(`contract-stranger-${process.pid}`));
  admin = await key.sign('contract-ops', { roles: ['admin'] });
  expiredToken = await key.sign(`contract-${process.pid}`, { exp: Math.floor(Date.now() / 1000) - 60 });
  document = (await (await fetch(`${platform.gatewayUrl}/openapi.json`)).json()) as typeof document;
}, 180_000);

afterAll(async () => {
  await platform?.stop();
});

const UNKNOWN_ID = '019a0000-0000-7000-8000-00000000dead';

/** A job of the user's that has ended. */
async function finishedJob(): Promise<string> {
  const created = await api.createJob(await api.stylizeBody(await api.uploadPhoto()), `finished-${Date.now()}`);
  await api.waitTerminal(created.body.job.id);
  return created.body.job.id;
}

/** The answer the platform gives to the request that provokes `status`/`code` on `operationId`. */
type Provoke = () => Promise<ApiAnswer>;
const PROVOKE: Readonly<Record<string, Readonly<Record<number, Provoke>>>> = {
  getCreationCatalog: {
    40000: () => api.call('GET', '/api/v1/creation/catalog?mediaKind=video'),
    40101: () => api.call('GET', '/api/v1/creation/catalog', { token: null }),
  },
  createGenerationJob: {
    40000: () => api.createJob({ jobType: 'image.stylize', prompt: 7 }, 'bad-request'),
    40101: () =>
      api.call('POST', '/api/v1/creation/jobs', { token: null, body: { jobType: 'image.stylize' }, headers: { 'idempotency-key': 'k' } }),
    40405: async () => api.createJob(await api.stylizeBody(UNKNOWN_ID), 'unknown-input'),
    // A pet the user neither owns nor is shared: not found, whether it exists or not.
    40401: async () => api.createJob({ ...(await api.stylizeBody(await api.uploadPhoto())), petId: strangersPet() }, 'strangers-pet'),
    40905: async () => {
      const body = await api.stylizeBody(await api.uploadPhoto());
      const first = await api.createJob(body, 'reused-key');
      expect(first.status).toBe(201);
      await api.waitTerminal(first.body.job.id);
      return api.createJob({ ...body, prompt: 'another request' }, 'reused-key');
    },
    42203: async () => api.createJob(await api.stylizeBody(await api.uploadPhoto({ complete: false })), 'not-ready'),
    // A model the catalog keeps for old jobs' sake but no longer offers (disabled, not deleted).
    42206: async () => api.createJob({ ...(await api.stylizeBody(await api.uploadPhoto())), modelId: await disabledModel() }, 'disabled'),
    // A user of its own: their two slow jobs in flight must not hold up the other rows.
    42900: async () => {
      const busy = api.as(await sign(`contract-busy-${process.pid}`));
      const body = await busy.stylizeBody(await busy.uploadPhoto(), 'slow #sim-latency=3000');
      for (const key of ['in-flight-1', 'in-flight-2']) expect((await busy.createJob(body, key)).status).toBe(201);
      return busy.createJob(body, 'in-flight-3');
    },
  },
  listGenerationJobs: {
    40000: () => api.call('GET', '/api/v1/creation/jobs?status=finished'),
    40101: () => api.call('GET', '/api/v1/creation/jobs', { token: null }),
  },
  getGenerationJob: {
    40101: () => api.call('GET', `/api/v1/creation/jobs/${UNKNOWN_ID}`, { token: null }),
    40407: async () => stranger.call('GET', `/api/v1/creation/jobs/${await finishedJob()}`),
  },
  cancelGenerationJob: {
    40101: () => api.call('POST', `/api/v1/creation/jobs/${UNKNOWN_ID}/cancel`, { token: null }),
    40407: () => api.call('POST', `/api/v1/creation/jobs/${UNKNOWN_ID}/cancel`),
    42206: async () => api.call('POST', `/api/v1/creation/jobs/${await finishedJob()}/cancel`),
  },
};

/** A stylize model of the catalog that is disabled (the operators' list shows it, the app's does not). */
async function disabledModel(): Promise<string> {
  const catalog = await api.call<{ models: { id: string; jobType: string; enabled: boolean }[] }>(
    'GET',
    '/admin-api/catalog?mediaKind=image',
    {
      token: admin,
    },
  );
  const model = catalog.body.models.find((candidate) => !candidate.enabled && candidate.jobType === 'image.stylize');
  if (!model) throw new Error(`no disabled stylize model in the catalog: ${JSON.stringify(catalog.body)}`);
  return model.id;
}

/** The pets the pet directory knows for this run: one of the user's, one of a stranger's (not shared). */
const PETS = {
  own: '019a0000-0000-7000-8000-00000000a001',
  strangers: '019a0000-0000-7000-8000-00000000a002',
};
const strangersPet = () => PETS.strangers;

describe('the creation API, to the letter of the evaluation table', () => {
  it('names the five operations as the table does, under the tag creation', () => {
    for (const [operationId, route] of Object.entries(EVALUATION_TABLE)) {
      const operation = document.paths[route.path]?.[route.method.toLowerCase()];
      expect(operation?.operationId, `${route.method} ${route.path}`).toBe(operationId);
      expect(operation?.tags).toContain('creation');
    }
  });

  it('documents every pair of the table under its operation, and beyond it only the listed departures', () => {
    for (const [operationId, route] of Object.entries(EVALUATION_TABLE)) {
      const operation = document.paths[route.path]![route.method.toLowerCase()]!;
      const documented = Object.entries(operation.responses)
        .filter(([status]) => Number(status) >= 400)
        .flatMap(([status, response]) =>
          response.content!['application/json']!.schema.properties.error.properties.code.enum.map(
            (code) => [Number(status), code] as const,
          ),
        );
      for (const [status, code] of route.pairs)
        expect(documented, `${operationId} documents ${status}/${code}`).toContainEqual([status, code]);
      const beyond = documented.filter(([status, code]) => !route.pairs.some(([s, c]) => s === status && c === code));
      for (const [status, code] of beyond) {
        expect(
          DEPARTURES[code],
          `${operationId} documents ${status}/${code} (${codeName(code)}), which the table does not list`,
        ).toBeDefined();
        expect(Math.floor(code / 100)).toBe(status);
      }
      expect(OPERATION_ERRORS[operationId]).toBeDefined();
    }
  });

  it('lists every departure, with its reason, in docs/api.md', () => {
    const api = readFileSync(new URL('../../../docs/api.md', import.meta.url), 'utf8');
    const start = api.indexOf('\n## The creation API, to the letter\n');
    expect(start, 'docs/api.md has the section').toBeGreaterThan(0);
    const end = api.indexOf('\n## ', start + 1);
    const section = api.slice(start, end === -1 ? undefined : end);
    for (const code of Object.keys(DEPARTURES)) expect(section, `docs/api.md lists ${code}`).toContain(String(code));
  });

  for (const [operationId, route] of Object.entries(EVALUATION_TABLE)) {
    for (const [status, code] of route.pairs) {
      it(`${operationId}: ${status}/${code} ${codeName(code) ?? ''}`, async () => {
        const answer = (await PROVOKE[operationId]![code]!()) as ApiAnswer<{ error: { code: number; name: string } }>;
        expect(answer.status, JSON.stringify(answer.body)).toBe(status);
        expect(answer.body.error.code).toBe(code);
        expect(answer.body.error.name).toBe(codeName(code));
        if (status === 429) expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
      });
    }
  }

  it('tells an expired token apart (40102) with the status the table gives a refused token (401)', async () => {
    const answer = await api.call<{ error: { code: number } }>('GET', '/api/v1/creation/jobs', { token: expiredToken });
    expect(answer.status).toBe(401);
    expect(answer.body.error.code).toBe(40102);
  });
});
