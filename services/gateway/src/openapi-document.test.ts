import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from './http/error-codes.js';
import { errorNamesOfStatus } from './http/openapi-conventions.js';
import { OPERATION_ERRORS } from './http/operation-errors.js';
import { buildOpenApiDocument } from './openapi-document.js';

// What a client generator (Swift, Kotlin, openapi-typescript) needs from the document, checked on
// the document the gateway serves. A failure names the operation; fix it in its route's schema
// (operationId), in routes/api-examples.ts (examples) or in http/openapi-conventions.ts.

type MediaType = { schema?: object; example?: unknown; examples?: Record<string, { value: unknown }> };
type Response = { $ref?: string; content?: Record<string, MediaType>; headers?: Record<string, unknown> };
type Operation = {
  operationId?: string;
  parameters?: { in: string; name: string; required?: boolean; description?: string }[];
  requestBody?: { required?: boolean; content: Record<string, MediaType> };
  responses: Record<string, Response>;
};
type Document = {
  servers?: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, object>; responses: Record<string, Response>; headers: Record<string, unknown> };
};

type ErrorSchema = { properties: { error: { properties: { name: { enum: string[] } } } } };

let document: Document;
let operations: { label: string; operation: Operation }[];
let ajv: InstanceType<typeof Ajv2020.default>;

const examplesOf = (media: MediaType): unknown[] =>
  media.example !== undefined ? [media.example] : Object.values(media.examples ?? {}).map((example) => example.value);
const resolve = (response: Response): Response =>
  response.$ref ? document.components.responses[response.$ref.replace('#/components/responses/', '')]! : response;

beforeAll(async () => {
  document = (await buildOpenApiDocument()) as unknown as Document;
  operations = Object.entries(document.paths).flatMap(([path, byMethod]) =>
    Object.entries(byMethod).map(([method, operation]) => ({ label: `${method.toUpperCase()} ${path}`, operation })),
  );
  ajv = new Ajv2020.default({ strict: false });
  addFormats.default(ajv as never);
  for (const [name, schema] of Object.entries(document.components.schemas)) ajv.addSchema(schema, `#/components/schemas/${name}`);
});

describe('the OpenAPI document', () => {
  it('names a server', () => {
    expect(document.servers?.length).toBeGreaterThan(0);
  });

  it('gives every operation a unique camelCase operationId (a method name in generated clients)', () => {
    expect(operations.length).toBeGreaterThanOrEqual(32);
    const seen = new Map<string, string>();
    for (const { label, operation } of operations) {
      expect(operation.operationId, `${label} has no operationId: add one to its route schema`).toMatch(/^[a-z][a-zA-Z0-9]+$/);
      expect(seen.get(operation.operationId!), `${label} reuses operationId ${operation.operationId}`).toBeUndefined();
      seen.set(operation.operationId!, label);
    }
  });

  it('describes every error status with its own codes as enums, examples and Retry-After on 429 and 503', () => {
    for (const { label, operation } of operations) {
      const statuses = Object.keys(operation.responses).map(Number);
      expect(statuses, `${label} documents 400, 401 and 503`).toEqual(expect.arrayContaining([400, 401, 503]));
      for (const status of statuses.filter((s) => s >= 400)) {
        const response = resolve(operation.responses[String(status)]!);
        const media = response.content?.['application/json'];
        expect(media?.schema, `${label} ${status} has the error body schema`).toBeDefined();
        const validate = ajv.compile(media!.schema!);
        const declared = OPERATION_ERRORS[operation.operationId!];
        const names = declared ? declared.filter((name) => ApiError[name].status === status) : errorNamesOfStatus(status);
        expect(names.length, `${label}: ${status} is a status of ApiError${declared ? ' it declares' : ''}`).toBeGreaterThan(0);
        const examples = examplesOf(media!) as { error: { code: number; name: string } }[];
        expect(examples.map((example) => example.error.name).sort(), `${label} ${status}: one example per code`).toEqual([...names].sort());
        for (const example of examples) {
          expect(validate(example), `${label} ${status} ${example.error.name}: ${JSON.stringify(validate.errors)}`).toBe(true);
          expect(example.error.code).toBe(ApiError[example.error.name as keyof typeof ApiError].code);
        }
        expect(
          validate({ error: { code: 99999, name: names[0], message: 'm', requestId: 'r' } }),
          'an unknown code is outside the enum',
        ).toBe(false);
        if (status === 429 || status === 503) expect(response.headers?.['Retry-After'], `${label} ${status} has Retry-After`).toBeDefined();
      }
    }
  });

  it('lists, under an operation that declares its errors, exactly its statuses and codes', () => {
    const declaring = operations.filter(({ operation }) => OPERATION_ERRORS[operation.operationId!]);
    expect(declaring.map(({ operation }) => operation.operationId).sort()).toEqual(Object.keys(OPERATION_ERRORS).sort());
    for (const { label, operation } of declaring) {
      const documented = Object.entries(operation.responses)
        .filter(([status]) => Number(status) >= 400)
        .flatMap(
          ([, response]) => (resolve(response).content!['application/json']!.schema as ErrorSchema).properties.error.properties.name.enum,
        );
      expect(documented.sort(), label).toEqual([...OPERATION_ERRORS[operation.operationId!]!].sort());
    }
  });

  it('marks a request body required exactly where the route needs one', () => {
    const optional = operations.filter(({ operation }) => operation.requestBody && !operation.requestBody.required);
    // The one-tap draft takes an optional {title, content}; every other body is required.
    expect(optional.map(({ operation }) => operation.operationId)).toEqual(['createDraftFromJob']);
  });

  it('has an example of every request body and every success answer, each valid against its schema', () => {
    for (const { label, operation } of operations) {
      const bodies = [
        ...Object.values(operation.requestBody?.content ?? {}).map((media) => ({ what: 'request', media })),
        ...Object.entries(operation.responses)
          .filter(([status]) => Number(status) < 400)
          .flatMap(([status, response]) => Object.values(response.content ?? {}).map((media) => ({ what: status, media }))),
      ];
      for (const { what, media } of bodies) {
        const examples = examplesOf(media);
        expect(examples.length, `${label} ${what} has an example (routes/api-examples.ts)`).toBeGreaterThan(0);
        const validate = ajv.compile(media.schema!);
        for (const example of examples) expect(validate(example), `${label} ${what}: ${JSON.stringify(validate.errors)}`).toBe(true);
      }
    }
  });

  it('describes the Idempotency-Key header where a create is idempotent', () => {
    for (const operationId of ['createGenerationJob', 'createPost']) {
      const { operation } = operations.find(({ operation }) => operation.operationId === operationId)!;
      const header = operation.parameters?.find(
        (parameter) => parameter.in === 'header' && parameter.name.toLowerCase() === 'idempotency-key',
      );
      expect(header, `${operationId} documents Idempotency-Key`).toMatchObject({ required: true });
      expect(header!.description).toMatch(/same key/);
    }
  });
});
