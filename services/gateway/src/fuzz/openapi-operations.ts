/** One operation of the gateway's OpenAPI document, as much of it as the fuzzer needs. */
export interface Operation {
  method: string;
  /** The path template, e.g. `/api/v1/posts/{postId}`. */
  path: string;
  parameters: { name: string; in: 'path' | 'query' | 'header'; required: boolean; schema: JsonSchema }[];
  /** The JSON body's schema, when the operation takes one. */
  body?: JsonSchema;
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

interface OpenApiDocument {
  paths: Record<
    string,
    Record<string, { parameters?: Operation['parameters']; requestBody?: { content?: Record<string, { schema: JsonSchema }> } }>
  >;
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
      });
    }
  }
  return operations;
}
