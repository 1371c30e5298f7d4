import { fileURLToPath } from 'node:url';
import { lintFromString, loadConfig } from '@redocly/openapi-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from './openapi-document.js';

// Redocly's recommended rules (services/gateway/redocly.yaml) over the document the gateway
// serves: what client generators and the mobile team's tooling trip over.

const configPath = fileURLToPath(new URL('../redocly.yaml', import.meta.url));
let config: Awaited<ReturnType<typeof loadConfig>>;

const lint = async (document: object) =>
  (await lintFromString({ source: JSON.stringify(document), absoluteRef: '/openapi.json', config })).map(
    (problem) => `${problem.severity} ${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer ?? '?'}`,
  );

beforeAll(async () => {
  config = await loadConfig({ configPath });
});

describe('the OpenAPI document under Redocly lint', () => {
  it('has no problem, not even a warning', async () => {
    expect(await lint(await buildOpenApiDocument())).toEqual([]);
  });

  it('would report a missing operationId and missing servers (the lint is live)', async () => {
    const document = (await buildOpenApiDocument()) as {
      servers?: unknown;
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    delete document.servers;
    delete document.paths['/api/v1/creation/jobs']!.post!.operationId;
    const problems = await lint(document);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^error no-empty-servers/),
        expect.stringMatching(/operation-operationId.*~1api~1v1~1creation~1jobs\/post/),
      ]),
    );
  });
});
