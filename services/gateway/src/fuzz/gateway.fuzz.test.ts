import { Agent } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MobileApi, startTestPlatform, type TestPlatform } from '@atelier/testing';
import { testTokenKey } from '../test-support/gateway-harness.js';
import { malformedRequests, type FuzzFixtures, type FuzzRequest } from './malformed-requests.js';
import { operationsOf, type Operation } from './openapi-operations.js';
import { sendRaw, TransportError, type RawAnswer } from './send-raw.js';

// Every route of the gateway's own OpenAPI document, driven with malformed input (types, bounds,
// encodings, NUL, bad JSON, odd content types and headers, tampered cursors, bad Last-Event-ID,
// bad tokens) against the real platform. Whatever a client sends, the answer is never ≥ 500, every
// error answer is one the operation documents (status and code), every request gets an answer (no
// reset, hang-up or unparsable answer), some get past validation to a success, and the gateway stays
// ready. Seeded: FUZZ_SEED=<seed> replays a run's requests; FUZZ_REQUESTS sets how many (default 5,000).
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 5_000);
const CONCURRENCY = 8;
const BATCH = 500;
const TIMEOUT_MS = 15_000;

let platform: TestPlatform;
let operations: Operation[];
let fixtures: FuzzFixtures;

/** An unsigned token (`alg: none`) and other forgeries no key made. */
function forgedTokens(subject: string): string[] {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const claims = { sub: subject, iss: 'e2e', aud: 'atelier-app', exp: Math.floor(Date.now() / 1000) + 600, roles: ['admin'] };
  return [
    `${part({ alg: 'none' })}.${part(claims)}.`,
    `${part({ alg: 'HS256' })}.${part(claims)}.${part('x')}`,
    `${part({ alg: 'EdDSA', kid: '../../etc/passwd' })}.${part(claims)}.AAAA`,
    'garbage',
    'a.b.c',
    '...',
    // exp beyond a double: JSON.stringify cannot write it, so it is spliced in as text.
    `${part({ alg: 'EdDSA' })}.${Buffer.from(JSON.stringify(claims).replace(/"exp":\d+/, '"exp":1e400')).toString('base64url')}.AAAA`,
  ];
}

beforeAll(async () => {
  const key = await testTokenKey();
  const strangers = await testTokenKey();
  platform = await startTestPlatform({ gateway: key.gatewayEnv, workers: 1, webhooks: {} });
  const user = `fuzz-${process.pid}`;
  const api = new MobileApi(platform.gatewayUrl!, await key.sign(user));
  const admin = await key.sign('fuzz-ops', { roles: ['admin'] });

  // Real things to aim at, so some requests reach the services and Postgres.
  const assetId = await api.uploadPhoto();
  const body = await api.stylizeBody(assetId);
  const jobs = [(await api.createJob(body, 'fuzz-1')).body.job.id, (await api.createJob(body, 'fuzz-2')).body.job.id];
  await api.waitTerminal(jobs[0]!);
  const posts: string[] = [];
  for (const title of ['fuzz one', 'fuzz two']) {
    const created = await api.call<{ post: { id: string } }>('POST', '/api/v1/posts', {
      body: { category: 'general', title, status: 'published' },
      headers: { 'idempotency-key': title },
    });
    posts.push(created.body.post.id);
  }
  const cursors: string[] = [];
  for (const [route, token] of [
    ['/api/v1/feed', api.token],
    ['/api/v1/me/posts', api.token],
    ['/api/v1/creation/jobs', api.token],
    ['/admin-api/jobs', admin],
  ] as const) {
    const page = await api.call<{ nextCursor: string | null }>('GET', `${route}?limit=1`, { token });
    if (page.body.nextCursor) cursors.push(page.body.nextCursor);
  }
  expect(cursors.length).toBeGreaterThanOrEqual(3);

  const now = Math.floor(Date.now() / 1000);
  fixtures = {
    tokens: [api.token, admin],
    badTokens: [
      await key.sign(user, { exp: now - 3_600 }),
      await key.sign(user, { exp: null }),
      await key.sign(user, { issuer: 'someone-else' }),
      await key.sign(user, { nbf: now + 3_600 }),
      await strangers.sign(user),
      api.token.slice(0, -4),
      ...forgedTokens(user),
    ],
    ids: [assetId, ...jobs, ...posts],
    cursors,
  };
  const document = (await (await fetch(`${platform.gatewayUrl}/openapi.json`)).json()) as Parameters<typeof operationsOf>[0];
  operations = operationsOf(document);
}, 180_000);

afterAll(async () => {
  await platform?.stop();
});

/** No route answers 404 40400 for a URL that matched none (a mangled path is not its operation's). */
const NO_ROUTE_CODE = 40400;
/** Node's HTTP parser refuses a request line (414) or headers (431) too large before any route sees it. */
const REFUSED_BY_THE_HTTP_PARSER = new Set([414, 431]);

/**
 * What is wrong with an error answer the operation's document does not list (its status, or its
 * code under that status), or undefined: a client generated from the document must know every
 * answer it can get.
 */
function undocumentedAnswer(operation: Operation, request: FuzzRequest, answer: RawAnswer): string | undefined {
  if (answer.status < 400 || answer.status >= 500 || REFUSED_BY_THE_HTTP_PARSER.has(answer.status)) return undefined;
  // A HEAD answer has no body to read a code from.
  if (request.method === 'HEAD') return undefined;
  let code: unknown;
  try {
    code = (JSON.parse(answer.body) as { error?: { code?: unknown } }).error?.code;
  } catch {
    return `${answer.status} with a body that is not the error JSON: ${answer.body.slice(0, 2_000)}`;
  }
  if (code === NO_ROUTE_CODE) return undefined;
  const documented = operation.errorCodes.get(answer.status);
  if (!documented) return `${answer.status} ${String(code)}: ${operation.method} ${operation.path} does not document ${answer.status}`;
  if (!documented.includes(code as number))
    return `${answer.status} ${String(code)}: ${operation.method} ${operation.path} documents ${documented.join(', ')} under ${answer.status}`;
  return undefined;
}

/** Node's HTTP parser's limit of a request line and headers together (--max-http-header-size, 16 KiB). */
const MAX_HEADER_BYTES = 16 * 1024;
/** Success answers (2xx) at least, of all requests: the fuzz must reach handlers, not only validation. */
const MIN_SUCCESS_SHARE = 0.02;
/** Requests sent again after a reset at most, of all requests: a reset now and then is the network's, many are the gateway's. */
const MAX_RESENT_SHARE = 0.02;

/**
 * Sends a request and answers what came back. A connection reset (or a broken pipe, a hang-up) is
 * met now and then by any keep-alive client — the server closed a connection as the request left
 * on it (Node's documentation says to send again): the request is sent once more on a connection
 * of its own, and counted (a run with many is a failure too). A second one, and anything else that
 * is not an answer — an unparsable answer, a timeout — is thrown.
 */
async function answerOf(base: URL, agent: Agent, request: FuzzRequest, resent: { count: number }): Promise<RawAnswer> {
  try {
    return await sendRaw(base, agent, request, TIMEOUT_MS);
  } catch (error) {
    if (!(error instanceof TransportError && /ECONNRESET|EPIPE|socket hang up/.test(error.message))) throw error;
    resent.count += 1;
    try {
      return await sendRaw(base, false, request, TIMEOUT_MS);
    } catch (again) {
      throw new TransportError(
        `${(again as Error).message} (sent again on a new connection after ${error.message}${error.reusedSocket ? ' on a reused one' : ''})`,
        false,
      );
    }
  }
}

/**
 * The one transport error that is the framework's and not a failure: Node's parser refuses a HEAD
 * whose request line and headers pass its limit, and Fastify's answer to that (431) carries a JSON
 * body, which a HEAD's answer cannot frame — the client reads the body as the next answer.
 */
function isHeadRefusedByTheParser(request: FuzzRequest, error: unknown): boolean {
  const size = request.url.length + Object.entries(request.headers).reduce((sum, [name, value]) => sum + name.length + value.length + 4, 0);
  return request.method === 'HEAD' && size > MAX_HEADER_BYTES && /Parse Error/.test((error as Error).message);
}

/** How a failing case is shown: everything needed to send it again by hand. */
function describeRequest(request: FuzzRequest): string {
  const body = request.body?.toString('utf8') ?? '';
  return [
    `${request.method} ${request.url.length > 2_000 ? `${request.url.slice(0, 2_000)}…(${request.url.length} chars)` : request.url}`,
    ...Object.entries(request.headers).map(
      ([name, value]) => `${name}: ${value.length > 300 ? `${value.slice(0, 300)}…(${value.length})` : value}`,
    ),
    '',
    body.length > 2_000 ? `${body.slice(0, 2_000)}…(${request.body!.length} bytes)` : body,
  ].join('\n');
}

describe('gateway fuzz', () => {
  it(`answers ${REQUESTS} malformed requests over every route of its OpenAPI document without a 5xx, and stays ready`, async () => {
    console.log(`gateway fuzz: seed ${SEED} (replay with FUZZ_SEED=${SEED}), ${REQUESTS} requests, ${operations.length} operations`);
    expect(operations.length).toBeGreaterThanOrEqual(19);
    const base = new URL(platform.gatewayUrl!);
    const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    const failures: string[] = [];
    const transportErrors = new Map<string, number>();
    const resent = { count: 0 };
    const statuses = new Map<number, number>();
    const perOperation = new Map<string, number>();
    const arbitrary = malformedRequests(operations, fixtures);
    const operationOf = new Map(operations.map((operation) => [`${operation.method} ${operation.path}`, operation]));
    let sent = 0;
    // Generated a batch at a time (a batch from seed + its index), so a run holds few huge bodies at once.
    for (let batch = 0; sent < REQUESTS; batch += 1) {
      const requests = fc.sample(arbitrary, { seed: SEED + batch, numRuns: Math.min(BATCH, REQUESTS - sent) });
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < requests.length) {
            const request = requests[next++]!;
            perOperation.set(request.operation, (perOperation.get(request.operation) ?? 0) + 1);
            try {
              const answer = await answerOf(base, agent, request, resent);
              statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
              if (answer.status >= 500) failures.push(`${answer.status} ${answer.body.slice(0, 2_000)}\n${describeRequest(request)}`);
              const undocumented = undocumentedAnswer(operationOf.get(request.operation)!, request, answer);
              if (undocumented) failures.push(`${undocumented}\n${describeRequest(request)}`);
            } catch (error) {
              const message = (error as Error).message;
              transportErrors.set(message, (transportErrors.get(message) ?? 0) + 1);
              if (transportErrors.get(message) === 1) console.log(`gateway fuzz: first "${message}":\n${describeRequest(request)}\n`);
              if (!isHeadRefusedByTheParser(request, error)) failures.push(`no answer: ${message}\n${describeRequest(request)}`);
            }
          }
        }),
      );
      sent += requests.length;
    }
    agent.destroy();
    console.log(
      `gateway fuzz: ${sent} requests; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}; transport errors ${JSON.stringify(Object.fromEntries(transportErrors))}; sent again after a reset: ${resent.count}`,
    );
    for (const failure of failures.slice(0, 20)) console.error(`gateway fuzz: failing case (seed ${SEED}):\n${failure}\n`);

    expect(sent).toBeGreaterThanOrEqual(REQUESTS);
    expect(failures, `${failures.length} requests answered ≥ 500, undocumented or not at all (seed ${SEED}); see the cases above`).toEqual(
      [],
    );
    expect(resent.count, `requests sent again after a reset, of ${sent}`).toBeLessThanOrEqual(Math.ceil(sent * MAX_RESENT_SHARE));
    // Some requests got past validation and authentication to a handler that succeeded: a gateway
    // refusing everything (or fixtures no longer valid) must not pass as robust.
    const successes = [...statuses].filter(([status]) => status >= 200 && status < 300).reduce((sum, [, count]) => sum + count, 0);
    expect(successes, `2xx answers of ${sent}`).toBeGreaterThanOrEqual(Math.ceil(sent * MIN_SUCCESS_SHARE));
    // Every route was driven, not only the cheap ones.
    for (const operation of operations)
      expect(perOperation.get(`${operation.method} ${operation.path}`) ?? 0).toBeGreaterThan(REQUESTS / operations.length / 4);
    expect((await fetch(`${platform.gatewayUrl}/readyz`)).status).toBe(200);
    expect((await fetch(`${platform.gatewayUrl}/api/v1/feed`, { headers: { authorization: `Bearer ${fixtures.tokens[0]}` } })).status).toBe(
      200,
    );
  }, 240_000);
});
