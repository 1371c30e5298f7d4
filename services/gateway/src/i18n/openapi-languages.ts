import { LOCALES } from './locales.js';

type Document = { paths?: object; components?: object };
type Response = { $ref?: string; headers?: Record<string, unknown> };
type Operation = { parameters?: unknown[]; responses?: Record<string, Response> };

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

/** The request header every operation reads, and the response header every answer carries. */
const ACCEPT_LANGUAGE = {
  name: 'Accept-Language',
  in: 'header',
  required: false,
  description:
    `The language of error messages, job error messages and catalog names: ${LOCALES.join(' or ')} (zh, zh-CN and zh-Hans all mean ` +
    'Simplified Chinese), by q-value. Absent, unparseable or unmatched: en — never an error. Codes and names never change with it.',
  schema: { type: 'string', maxLength: 1000, examples: ['zh-CN,zh;q=0.9,en;q=0.5'] },
};
const CONTENT_LANGUAGE = {
  description: 'The language this answer is in (en or zh-CN); answers also carry Vary: Accept-Language',
  schema: { type: 'string', enum: [...LOCALES] },
};

function withContentLanguage(response: Response): void {
  if (response.$ref !== undefined) return;
  response.headers = { ...response.headers, 'Content-Language': { $ref: '#/components/headers/ContentLanguage' } };
}

/**
 * The OpenAPI document with the language negotiation written into it: an `Accept-Language`
 * header parameter on every operation and a `Content-Language` header on every response, both
 * as components. The routes do not declare the header themselves (Ajv would then judge it, and
 * a bad Accept-Language must never be a 400); the onRequest hook reads it (request-locale.ts).
 */
export function withLanguageHeaders<T extends Document>(document: T): T {
  document.components ??= {};
  const components = document.components as Record<string, Record<string, unknown> | undefined>;
  components.parameters = { ...components.parameters, AcceptLanguage: ACCEPT_LANGUAGE };
  components.headers = { ...components.headers, ContentLanguage: CONTENT_LANGUAGE };
  for (const item of Object.values((document.paths ?? {}) as Record<string, Record<string, unknown> | undefined>)) {
    for (const [method, value] of Object.entries(item ?? {})) {
      if (!METHODS.has(method)) continue;
      const operation = value as Operation;
      const parameter = { $ref: '#/components/parameters/AcceptLanguage' };
      const given = operation.parameters ?? [];
      if (!given.some((p) => (p as { $ref?: string }).$ref === parameter.$ref)) operation.parameters = [...given, parameter];
      for (const response of Object.values(operation.responses ?? {})) withContentLanguage(response);
    }
  }
  // Shared responses (the error answers) carry it where they are defined; a $ref cannot.
  for (const response of Object.values((components.responses ?? {}) as Record<string, Response>)) withContentLanguage(response);
  return document;
}
