import ValidatorSelector from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
type ValidatorFactory = NonNullable<CompilersFactory['buildValidator']>;
type SerializerFactory = NonNullable<CompilersFactory['buildSerializer']>;

/**
 * Fastify's own compilers (Ajv for requests, fast-json-stringify for responses), each route's
 * schema compiled on its first use instead of at start-up. The gateway has some forty routes with
 * ten response schemas each (200 and the error codes), most of which a replica never serves, and
 * compiling them all at start-up made up most of its idle heap (the new space V8 grew for them
 * stays resident). The first request of a route (or of one of its error statuses) pays for its
 * compilation once. `eager: true` compiles at start-up as Fastify does: the tests build the app
 * that way, so a schema that does not compile still fails a test, not a user's first request.
 */
export function schemaCompilers(options: { eager?: boolean } = {}): CompilersFactory {
  const buildValidator = ValidatorSelector();
  const buildSerializer = SerializerSelector();
  if (options.eager) return { buildValidator, buildSerializer };
  const lazyValidators: ValidatorFactory = (externalSchemas, ajvOptions) => {
    const compile = buildValidator(externalSchemas, ajvOptions);
    return (route) => {
      let validate: ReturnType<typeof compile> | undefined;
      // Fastify reads `errors` off the function it called, as Ajv leaves them there.
      const lazy = Object.assign(
        (data: unknown) => {
          validate ??= compile(route);
          const valid = validate(data);
          lazy.errors = validate.errors;
          return valid;
        },
        { errors: undefined as ReturnType<typeof compile>['errors'] },
      );
      return lazy as unknown as ReturnType<typeof compile>;
    };
  };
  const lazySerializers: SerializerFactory = (externalSchemas, serializerOptions) => {
    const compile = buildSerializer(externalSchemas, serializerOptions);
    return (route) => {
      let serialize: ((data: unknown) => string) | undefined;
      return (data: unknown) => (serialize ??= compile(route))(data);
    };
  };
  return { buildValidator: lazyValidators, buildSerializer: lazySerializers };
}
