import fc from 'fast-check';
import type { JsonSchema, Operation } from './openapi-operations.js';

/** One HTTP request as sent on the wire: a raw path (already encoded, possibly badly) and headers. */
export interface FuzzRequest {
  /** The operation of the document it was made for: `GET /api/v1/feed`. */
  operation: string;
  method: string;
  /** Path and query string exactly as written on the request line. */
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
}

/** Real things of the platform to aim at, so some requests get past validation. */
export interface FuzzFixtures {
  /** Valid tokens (a user, an admin). */
  tokens: string[];
  /** Expired, without exp, another issuer, another key, unsigned, garbage. */
  badTokens: string[];
  /** Ids of real jobs, posts and assets of the fuzz user. */
  ids: string[];
  /** nextCursor values of real pages. */
  cursors: string[];
}

/** A JSON number written as is in a body (1e400 cannot be made with JSON.stringify). */
const RAW_NUMBER = (text: string) => `__RAWNUM_${text}__`;
const RAW_NUMBER_PATTERN = /"__RAWNUM_([-0-9.e+]+)__"/g;

const hostileNumberTexts = [
  '1e400',
  '-1e400',
  '9223372036854775808',
  '9223372036854775807',
  '-9223372036854775809',
  '18446744073709551616',
  '2147483648',
  '-2147483649',
  '1.5',
  '-0',
  '1e-400',
  '123456789012345678901234567890',
];
const hostileQueryTexts = [...hostileNumberTexts, 'Infinity', '-Infinity', 'NaN', '0x10', '1_000', ' 1', '', 'true', 'null', '[]'];

/** Strings that have broken parsers, encoders, drivers or databases somewhere. */
const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '\u0007',
    '\u001b[31m',
    '\u007f',
    '\ud800',
    '\udfff',
    'x\ud83d',
    '\u202e',
    '\ufeff',
    '%00',
    '%',
    '%zz',
    '../../etc/passwd',
    "' OR 1=1 --",
    '${jndi:ldap://x}',
    '<script>alert(1)</script>',
    '\\',
    'null',
    '__proto__',
    'constructor',
    ' ',
    '',
    '🐱'.repeat(300),
  ),
  fc.integer({ min: 1_000, max: 120_000 }).map((n) => 'x'.repeat(n)),
);

/** Header values Node can send (latin1 without controls): odd, long or empty. */
const headerChar = fc
  .oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff }))
  .map((code) => String.fromCharCode(code));
const headerText: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.string({ unit: headerChar, maxLength: 60 }), weight: 6 },
  { arbitrary: fc.constantFrom('', ' ', 'null', '-1', '1e400', '99999999999999999999', '%00', 'ÿÿÿ'), weight: 3 },
  // Past Node's 16 KiB of headers: 431 from the HTTP server itself.
  { arbitrary: fc.integer({ min: 200, max: 20_000 }).map((n) => 'a'.repeat(n)), weight: 1 },
);

/** Anything JSON can hold but the schema does not expect, down to deep nesting. */
function wrongValue(): fc.Arbitrary<unknown> {
  return fc.oneof(
    hostileString,
    fc.constantFrom(...hostileNumberTexts).map(RAW_NUMBER),
    fc.boolean(),
    fc.constant(null),
    fc.double(),
    fc.integer(),
    fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 5 }),
    fc.dictionary(hostileString, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
    fc.integer({ min: 17, max: 3_000 }).map((depth) => JSON.parse('['.repeat(depth) + ']'.repeat(depth)) as unknown),
  );
}

/** A value the schema accepts (or nearly: patterns and formats are honoured, lengths capped). */
function validValue(schema: JsonSchema, fixtures: FuzzFixtures): fc.Arbitrary<unknown> {
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'string':
      if (schema.format === 'uuid') return fc.oneof(fc.constantFrom(...fixtures.ids), fc.uuid());
      if (schema.format === 'date-time')
        return fc.oneof(
          fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
          // Valid RFC 3339 that a JavaScript Date or a protobuf Timestamp cannot hold.
          fc.constantFrom('2026-12-31T23:59:60Z', '0000-01-01T00:00:00Z', '9999-12-31T23:59:59.999999Z', '2026-01-01T00:00:00+23:59'),
        );
      if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern), { maxLength: 40 });
      return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 40, 40) });
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1_000, max: Math.min(schema.maximum ?? 1_000_000, Number.MAX_SAFE_INTEGER) });
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(schema.items ? validValue(schema.items, fixtures) : fc.jsonValue({ maxDepth: 1 }), {
        maxLength: Math.min(schema.maxItems ?? 5, 12),
      });
    case 'object': {
      if (!schema.properties) return fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 });
      return fc.record(
        Object.fromEntries(Object.entries(schema.properties).map(([name, property]) => [name, validValue(property, fixtures)])),
        { requiredKeys: schema.required ?? [] },
      );
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Mostly the expected value, often a wrong one. */
const mostlyValid = (schema: JsonSchema, fixtures: FuzzFixtures) =>
  fc.oneof({ arbitrary: validValue(schema, fixtures), weight: 2 }, { arbitrary: wrongValue(), weight: 1 });

/** An object for the schema with wrong values in some fields, fields missing, unknown fields added. */
function malformedObject(schema: JsonSchema, fixtures: FuzzFixtures): fc.Arbitrary<unknown> {
  const properties = schema.properties ?? {};
  const fields = fc.record(
    Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, mostlyValid(property, fixtures)])),
    { requiredKeys: [] },
  );
  const extra = fc.option(fc.dictionary(hostileString, wrongValue(), { minKeys: 1, maxKeys: 2 }), { freq: 4 });
  return fc.tuple(fields, extra).map(([known, unknown]) => ({ ...known, ...unknown }));
}

const encodedText = (text: string) => Buffer.from(text, 'utf8').toString('hex').replace(/../g, '%$&');

/** Percent-sequences that decode to no valid UTF-8, or are no percent-sequences at all. */
const badEncoding = fc.constantFrom('%ED%A0%80', '%FF%FE', '%C0%AF', '%E0%80%80', '%', '%G1', '%0', '%00', '%2F..%2F', '%F4%90%80%80');

/** The text of a query value or path segment, encoded (well or badly). */
const urlText = (valid: fc.Arbitrary<string>) =>
  fc.oneof(
    { arbitrary: valid.map(encodeURIComponent), weight: 3 },
    { arbitrary: fc.constantFrom(...hostileQueryTexts).map(encodeURIComponent), weight: 2 },
    { arbitrary: hostileString.map(encodedText), weight: 2 },
    { arbitrary: badEncoding, weight: 1 },
  );

/** A real cursor altered: a character flipped, cut short, extended, or a forged token. */
function tamperedCursor(fixtures: FuzzFixtures): fc.Arbitrary<string> {
  const forged = fc
    .oneof(
      fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value)),
      fc.record({ c: hostileString, i: hostileString }).map((value) => JSON.stringify(value)),
      fc.record({ o: fc.constantFrom('feed', 'mine', 'x'), t: hostileString, i: fc.uuid() }).map((value) => JSON.stringify(value)),
      fc.constantFrom(
        '{"c":"99999999999999999999","i":"------------------------------------"}',
        '{"o":"feed","t":"+275760-09-13T00:00:00Z","i":"019a0000-0000-7000-8000-0000000000aa"}',
        '{"o":"feed","t":"-271821-04-20T00:00:00Z","i":"019a0000-0000-7000-8000-0000000000aa"}',
      ),
    )
    .map((text) => Buffer.from(text).toString('base64url'));
  const real = fixtures.cursors.length > 0 ? fixtures.cursors : ['eyJ9'];
  return fc.oneof(
    fc.tuple(fc.constantFrom(...real), fc.nat(), fc.constantFrom('A', '_', '-', 'z', '0')).map(([cursor, at, c]) => {
      const i = at % cursor.length;
      return cursor.slice(0, i) + c + cursor.slice(i + 1);
    }),
    fc.tuple(fc.constantFrom(...real), fc.nat()).map(([cursor, at]) => cursor.slice(0, at % cursor.length)),
    fc.constantFrom(...real).map((cursor) => `${cursor}AAAA`),
    forged,
    fc.constantFrom(...real),
    fc.constantFrom('9223372036854775808', '99999999999999999999', '0', '1'),
  );
}

function queryString(operation: Operation, fixtures: FuzzFixtures): fc.Arbitrary<string> {
  const declared = operation.parameters.filter((p) => p.in === 'query');
  const pairs = declared.map((parameter) => {
    const valid = validValue(parameter.schema, fixtures).map(String);
    const value = parameter.name === 'cursor' ? fc.oneof(urlText(valid), tamperedCursor(fixtures).map(encodeURIComponent)) : urlText(valid);
    return fc.option(
      fc.array(value, { minLength: 1, maxLength: 2 }).map((values) => values.map((v) => `${parameter.name}=${v}`).join('&')),
      { freq: 3 },
    );
  });
  const unknown = fc.option(
    urlText(fc.string({ maxLength: 8 })).map((v) => `${v || 'x'}=${v}`),
    { freq: 5 },
  );
  return fc.tuple(fc.tuple(...pairs), unknown).map(([parts, extra]) => {
    const query = [...parts, extra].filter((part): part is string => part !== null).join('&');
    return query ? `?${query}` : '';
  });
}

function pathOf(operation: Operation, fixtures: FuzzFixtures): fc.Arbitrary<string> {
  const names = [...operation.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const segments = names.map((name) => {
    const schema = operation.parameters.find((p) => p.in === 'path' && p.name === name)?.schema ?? { type: 'string' };
    return fc.oneof(
      { arbitrary: validValue(schema, fixtures).map((v) => encodeURIComponent(String(v))), weight: 3 },
      { arbitrary: urlText(fc.constantFrom('x')), weight: 2 },
      { arbitrary: fc.constantFrom('..', '.', '%2E%2E', 'a%2Fb', ';x=1', '9223372036854775808', '-1', '0'), weight: 1 },
    );
  });
  return fc.tuple(...segments).map((values) => names.reduce((path, name, i) => path.replace(`{${name}}`, values[i]!), operation.path));
}

function headersOf(operation: Operation, fixtures: FuzzFixtures): fc.Arbitrary<Record<string, string>> {
  const authorization = fc.oneof(
    { arbitrary: fc.constantFrom(...fixtures.tokens).map((t) => `Bearer ${t}`), weight: 12 },
    { arbitrary: fc.constantFrom(...fixtures.badTokens).map((t) => `Bearer ${t}`), weight: 3 },
    { arbitrary: headerText.map((t) => `Bearer ${t}`), weight: 1 },
    { arbitrary: fc.constantFrom('Bearer', 'Bearer  ', 'Basic dXNlcjpwYXNz', 'bearer x.y.z', 'Bearer a b'), weight: 1 },
    { arbitrary: fc.constant(undefined), weight: 1 },
  );
  const contentType = fc.option(
    fc.oneof(
      { arbitrary: fc.constant('application/json'), weight: 6 },
      {
        arbitrary: fc.constantFrom(
          'application/json; charset=utf-8',
          'application/json; charset=utf-16',
          'application/json; charset=latin1',
          'text/plain',
          'application/x-www-form-urlencoded',
          'multipart/form-data; boundary=x',
          'application/xml',
          'application/octet-stream',
          'application/json, text/plain',
          '*/*',
          'application/',
        ),
        weight: 3,
      },
      { arbitrary: headerText, weight: 1 },
    ),
    { freq: 8 },
  );
  const idempotencyKey = fc.option(fc.oneof(fc.uuid(), headerText), { freq: 6 });
  const lastEventId = fc.option(fc.oneof(fc.nat().map(String), headerText, fc.constantFrom(...hostileQueryTexts)), { freq: 2 });
  const extra = fc.option(fc.tuple(fc.constantFrom('x-request-id', 'x-fuzz', 'accept', 'accept-encoding', 'cookie'), headerText), {
    freq: 3,
  });
  return fc.record({ authorization, contentType, idempotencyKey, lastEventId, extra }).map((h) => {
    const headers: Record<string, string> = {};
    if (h.authorization !== undefined) headers.authorization = h.authorization;
    if (h.contentType !== null) headers['content-type'] = h.contentType;
    if (h.idempotencyKey !== null) headers['idempotency-key'] = h.idempotencyKey;
    if (h.lastEventId !== null) headers['last-event-id'] = h.lastEventId;
    if (h.extra !== null) headers[h.extra[0]] = h.extra[1];
    return headers;
  });
}

const rawBodies = fc.constantFrom(
  '',
  '{',
  '{"a":',
  '[]',
  'null',
  '1e400',
  '"text"',
  '{"__proto__":{"admin":true}}',
  '{"constructor":{"prototype":{"admin":true}}}',
  '\ufeff{}',
  '{"a":1,"a":2}',
  '{"title":"\\u0000"}',
  '{"title":"\\ud800"}',
  '{"expectedVersion":1e400,"title":"t"}',
  `${'['.repeat(50_000)}${']'.repeat(50_000)}`,
  `{"title":"${'x'.repeat(1_100_000)}"}`,
);

function bodyOf(operation: Operation, fixtures: FuzzFixtures): fc.Arbitrary<Buffer | undefined> {
  const structured = operation.body
    ? malformedObject(operation.body, fixtures).map((value) => JSON.stringify(value).replace(RAW_NUMBER_PATTERN, '$1'))
    : wrongValue().map((value) => JSON.stringify(value) ?? '');
  return fc.oneof(
    { arbitrary: structured.map((text) => Buffer.from(text)), weight: operation.body ? 6 : 1 },
    { arbitrary: rawBodies.map((text) => Buffer.from(text)), weight: 2 },
    { arbitrary: fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)), weight: 1 },
    { arbitrary: fc.constantFrom(Buffer.from([0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00]), Buffer.from('{"t":"\xff\xfe"}', 'latin1')), weight: 1 },
    { arbitrary: fc.constant(undefined), weight: operation.body ? 1 : 6 },
  );
}

/** Chaos: every part of the request may be wrong at once (its method now and then too). */
function chaoticRequest(operation: Operation, fixtures: FuzzFixtures): fc.Arbitrary<FuzzRequest> {
  const method = fc.oneof(
    { arbitrary: fc.constant(operation.method), weight: 12 },
    { arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'), weight: 1 },
  );
  return fc
    .record({
      method,
      path: pathOf(operation, fixtures),
      query: queryString(operation, fixtures),
      headers: headersOf(operation, fixtures),
      body: bodyOf(operation, fixtures),
    })
    .map(({ method: verb, path, query, headers, body }) => ({
      operation: `${operation.method} ${operation.path}`,
      method: verb,
      url: `${path}${query}`,
      headers,
      body: verb === 'GET' || verb === 'HEAD' ? (body && body.length < 100 ? body : undefined) : body,
    }));
}

/** Text with one character nothing downstream should receive (Postgres refuses NUL, for one). */
const textWithBadCharacter = fc
  .tuple(
    fc.string({ minLength: 1, maxLength: 12 }),
    fc.constantFrom('\u0000', '\u0001', '\u0008', '\u001f', '\u007f', '\ud800', '\udfff'),
    fc.nat(),
  )
  .map(([text, bad, at]) => text.slice(0, at % (text.length + 1)) + bad + text.slice(at % (text.length + 1)));

/** One wrong value: a bad character, an out-of-range number, a wrong type. */
const singleFaultValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: textWithBadCharacter, weight: 3 },
  { arbitrary: fc.constantFrom(...hostileNumberTexts).map(RAW_NUMBER), weight: 2 },
  { arbitrary: wrongValue(), weight: 2 },
);

/**
 * A valid request (a real id, a valid token, a body the schema accepts) with exactly one thing
 * wrong, so the fault reaches as deep as validation lets it: a body field, a query parameter, a
 * path parameter, the token, one header, or the whole body.
 */
function singleFaultRequest(operation: Operation, fixtures: FuzzFixtures): fc.Arbitrary<FuzzRequest> {
  const names = [...operation.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const pathValues = fc.tuple(
    ...names.map((name) => validValue(operation.parameters.find((p) => p.in === 'path' && p.name === name)?.schema ?? {}, fixtures)),
  );
  const queryParameters = operation.parameters.filter((p) => p.in === 'query');
  const queryValues = fc.tuple(...queryParameters.map((p) => fc.option(validValue(p.schema, fixtures), { freq: 2 })));
  const body = operation.body ? validValue(operation.body, fixtures) : fc.constant(undefined);
  const faults = ['token', 'header', 'rawBody', ...(operation.body ? ['bodyField', 'bodyField', 'bodyField', 'bodyField'] : [])];
  if (queryParameters.length > 0) faults.push('query', 'query', 'cursor');
  if (names.length > 0) faults.push('path');
  return fc
    .record({
      pathValues,
      queryValues,
      body,
      token: fc.constantFrom(...fixtures.tokens),
      fault: fc.constantFrom(...faults),
      faultValue: singleFaultValue,
      pick: fc.nat(),
      badToken: fc.constantFrom(...fixtures.badTokens),
      cursor: tamperedCursor(fixtures),
      header: fc.tuple(fc.constantFrom('content-type', 'last-event-id', 'idempotency-key', 'accept', 'x-request-id'), headerText),
      rawBody: rawBodies,
      badSegment: fc.oneof(badEncoding, hostileString.map(encodedText)),
    })
    .map((r) => {
      const segments = r.pathValues.map((value) => encodeURIComponent(String(value)));
      if (r.fault === 'path') segments[r.pick % segments.length] = r.badSegment;
      const query = queryParameters.flatMap((parameter, i) => {
        const value = r.queryValues[i];
        return value === null || value === undefined ? [] : [`${parameter.name}=${encodeURIComponent(String(value))}`];
      });
      if (r.fault === 'query') {
        const parameter = queryParameters[r.pick % queryParameters.length]!;
        const text = typeof r.faultValue === 'string' ? r.faultValue.replace(RAW_NUMBER_PATTERN, '$1') : JSON.stringify(r.faultValue);
        query.push(`${parameter.name}=${encodedText(String(text).replace(/^__RAWNUM_(.*)__$/, '$1'))}`);
      }
      if (r.fault === 'cursor') query.push(`cursor=${encodeURIComponent(r.cursor)}`);
      let bodyValue = r.body as unknown;
      if (r.fault === 'bodyField' && bodyValue && typeof bodyValue === 'object') {
        const keys = Object.keys(operation.body?.properties ?? {});
        const key = keys[r.pick % keys.length]!;
        bodyValue = { ...(bodyValue as Record<string, unknown>), [key]: r.faultValue };
      }
      let bodyBytes = bodyValue === undefined ? undefined : Buffer.from(JSON.stringify(bodyValue).replace(RAW_NUMBER_PATTERN, '$1'));
      if (r.fault === 'rawBody') bodyBytes = Buffer.from(r.rawBody);
      const headers: Record<string, string> = {
        authorization: `Bearer ${r.fault === 'token' ? r.badToken : r.token}`,
        'idempotency-key': `fuzz-${r.pick}`,
        ...(bodyBytes ? { 'content-type': 'application/json' } : {}),
      };
      if (r.fault === 'header') headers[r.header[0]] = r.header[1];
      const path = names.reduce((template, name, i) => template.replace(`{${name}}`, segments[i]!), operation.path);
      return {
        operation: `${operation.method} ${operation.path}`,
        method: operation.method,
        url: query.length > 0 ? `${path}?${query.join('&')}` : path,
        headers,
        body: operation.method === 'GET' ? undefined : bodyBytes,
      };
    });
}

/** Requests for one operation of the document: one thing wrong, or everything. */
export function malformedRequest(operation: Operation, fixtures: FuzzFixtures): fc.Arbitrary<FuzzRequest> {
  return fc.oneof(
    { arbitrary: singleFaultRequest(operation, fixtures), weight: 2 },
    { arbitrary: chaoticRequest(operation, fixtures), weight: 1 },
  );
}

/** Requests for every operation, in turn. */
export function malformedRequests(operations: Operation[], fixtures: FuzzFixtures): fc.Arbitrary<FuzzRequest> {
  return fc.oneof(...operations.map((operation) => malformedRequest(operation, fixtures)));
}
