/** One operation of the gateway's OpenAPI document, as much of it as the fuzzer needs. */
export interface Operation {
  method: string;
  /** The path template, e.g. `/api/v1/posts/{postId}`. */
  path: string;
  parameters: { name: string; in: 'path' | 'query' | 'header'; required: boolean; schema: JsonSchema }[];
  /** The JSON body's schema, when the operation takes one. */
  body?: JsonSchema;
  /** The error codes the document lists under each error status of the operation. */
  errorCodes: Map<number, number[]>;
}

export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  maxItems?: number;
}

type ErrorResponse = { $ref?: string; content?: Record<string, { schema?: JsonSchema & { $ref?: string } }> };

interface OpenApiDocument {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: Operation['parameters'];
        requestBody?: { content?: Record<string, { schema: JsonSchema }> };
        responses?: Record<string, ErrorResponse>;
      }
    >
  >;
  components?: { responses?: Record<string, ErrorResponse>; schemas?: Record<string, JsonSchema> };
}

/** The codes an error response of the document lists (its body's error.code enum), through its $refs. */
function codesOf(document: OpenApiDocument, given: ErrorResponse): number[] {
  const response = given.$ref ? document.components?.responses?.[given.$ref.split('/').at(-1)!] : given;
  const schema = response?.content?.['application/json']?.schema;
  const body = schema?.$ref ? document.components?.schemas?.[schema.$ref.split('/').at(-1)!] : schema;
  return (body?.properties?.error?.properties?.code?.enum ?? []) as number[];
}

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);

/** Every operation of the document (the gateway's /openapi.json), in document order. */
export function operationsOf(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      operations.push({
        method: method.toUpperCase(),
        path,
        parameters: operation.parameters ?? [],
        body: operation.requestBody?.content?.['application/json']?.schema,
        errorCodes: new Map(
          Object.entries(operation.responses ?? {})
            .filter(([status]) => Number(status) >= 400)
            .map(([status, response]) => [Number(status), codesOf(document, response)]),
        ),
      });
    }
  }
  return operations;
}
