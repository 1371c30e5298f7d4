import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from './openapi-document.js';

// The mobile team generates clients from openapi.json; here openapi-typescript stands in for
// their generator: the typed client of the document must compile a real journey and refuse a
// wrong one (so the types carry the routes' fields, not `any`).

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
let workDir: string;

const JOURNEY = `
import createClient from 'openapi-fetch';
import type { paths, operations } from './api.js';

const api = createClient<paths>({ baseUrl: 'http://localhost:8080' });

export async function journey(photo: Blob): Promise<string | null> {
  const started = await api.POST('/api/v1/media/uploads', {
    body: { purpose: 'ai_input', contentType: 'image/jpeg', sizeBytes: photo.size },
  });
  if (!started.data) throw new Error(started.error.error.message);
  await fetch(started.data.upload.url, { method: started.data.upload.method, headers: started.data.upload.headers, body: photo });
  const assetId = started.data.asset.id;
  await api.POST('/api/v1/media/uploads/{assetId}/complete', { params: { path: { assetId } } });

  const { data: catalog } = await api.GET('/api/v1/creation/catalog', { params: { query: { mediaKind: 'image' } } });
  const created = await api.POST('/api/v1/creation/jobs', {
    params: { header: { 'idempotency-key': crypto.randomUUID() } },
    body: { jobType: 'image.stylize', modelId: catalog?.models[0]?.id, inputAssetId: assetId, prompt: 'my cat', startWithinSeconds: 30 },
  });
  if (created.error) {
    if (created.error.error.name === 'GENERATION_QUOTA_EXCEEDED') return 'come back tomorrow';
    return String(created.error.error.code) + ' ' + created.error.error.message;
  }
  const quota: operations['getQuota']['responses'][200]['content']['application/json'] | undefined = (await api.GET('/api/v1/me/quota')).data;
  const job = await api.GET('/api/v1/creation/jobs/{jobId}', { params: { path: { jobId: created.data.job.id } } });
  if (job.data?.job.status === 'succeeded') return job.data.job.outputUrl;
  await api.POST('/api/v1/creation/jobs/{jobId}/cancel', { params: { path: { jobId: created.data.job.id } } });
  return quota ? String(quota.daily.remaining) : null;
}
`;

function typeErrors(file: string, source: string): string[] {
  const target = path.join(workDir, file);
  writeFileSync(target, source);
  const program = ts.createProgram([target], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    skipLibCheck: true,
    types: [],
  });
  return ts
    .getPreEmitDiagnostics(program)
    .map(
      (diagnostic) =>
        `${diagnostic.file ? path.basename(diagnostic.file.fileName) : ''}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`,
    );
}

beforeAll(async () => {
  // Inside the repository's node_modules so that `openapi-fetch` resolves from the generated code.
  const cache = path.join(repoRoot, 'node_modules/.cache');
  mkdirSync(cache, { recursive: true });
  workDir = mkdtempSync(path.join(cache, 'openapi-client-'));
  writeFileSync(path.join(workDir, 'package.json'), JSON.stringify({ type: 'module' }));
  const document = await buildOpenApiDocument();
  writeFileSync(path.join(workDir, 'api.d.ts'), astToString(await openapiTS(document as never)));
});

afterAll(() => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

describe('a client generated from the OpenAPI document', () => {
  it('type-checks the upload → job → quota journey', () => {
    expect(typeErrors('journey.ts', JOURNEY)).toEqual([]);
  }, 60_000);

  it.each([
    ['a misspelled field', "jobType: 'image.stylize'", "jobtype: 'image.stylize'", /'jobtype' does not exist/],
    ['a missing Idempotency-Key', "params: { header: { 'idempotency-key': crypto.randomUUID() } },", '', /params|header/],
    ['an unknown route', "api.GET('/api/v1/me/quota')", "api.GET('/api/v1/me/quotas')", /./],
    ['an error name outside the documented codes', "=== 'GENERATION_QUOTA_EXCEEDED'", "=== 'QUOTA_GONE'", /no overlap/],
    ['a wrong type of answer field', 'String(quota.daily.remaining)', 'quota.daily.remaining', /number.*not assignable to type 'string/],
  ])(
    'refuses %s',
    (_what, right, wrong, message) => {
      expect(JOURNEY).toContain(right);
      const errors = typeErrors('wrong-journey.ts', JOURNEY.replace(right, wrong));
      expect(errors.length).toBeGreaterThan(0);
      expect(errors.join('\n')).toMatch(message);
    },
    60_000,
  );
});
