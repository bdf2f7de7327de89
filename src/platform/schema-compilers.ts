/**
 * The compilers of the routes' schemas, shared by every app this process builds: the request
 * validators (Ajv, through Fastify's own `@fastify/ajv-compiler`) and the answer serializers
 * (fast-json-stringify). Compiling them was much of what building an app cost (profiles of the
 * tests' workers: the serializers a third of a test app's start, the validators later 8 % of a
 * worker's CPU): the tests build hundreds of apps in one process, and each schema is now
 * compiled once a process instead of once an app. A compiled validator or serializer is a pure
 * function of its schema's JSON and of the compiler's options, so sharing it changes no answer;
 * it is kept by that JSON, since many routes make their schemas as they register (the error
 * answers of each status, for one).
 *
 * A validator compiler given to Fastify is "custom", and Fastify then hands it a request's
 * header schema as written instead of with the headers' names in lower case (its own
 * preparation, which it does not export). Node gives every request's header names in lower
 * case, so a schema naming one otherwise could never match: such a schema is refused here, when
 * its route registers.
 */
import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type CompilersFactory = NonNullable<
  NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']
>;
type BuildSerializer = NonNullable<CompilersFactory['buildSerializer']>;
type Serialize = ReturnType<ReturnType<BuildSerializer>>;
type BuildValidator = NonNullable<CompilersFactory['buildValidator']>;
/**
 * What Fastify hands a validator compiler for each part of a route's request (the package's
 * own types give Ajv's `compile`, which takes the schema alone).
 */
interface RequestPart {
  schema?: unknown;
  url: string;
  httpPart: string;
}
type CompileValidator = (part: RequestPart) => unknown;

/**
 * Keeps what `compile` makes for a route by its schema's JSON and `context` (the external
 * schemas and options of the compiler, as JSON).
 */
function keptByJson<R extends { schema?: unknown }, F>(
  compiled: Map<string, F>,
  context: string,
  compile: (route: R) => F,
): (route: R) => F {
  return (route) => {
    const key = `${JSON.stringify(route.schema)}\u0000${context}`;
    let made = compiled.get(key);
    if (!made) {
      made = compile(route);
      compiled.set(key, made);
    }
    return made;
  };
}

const selectSerializer = SerializerSelector();
/** The compiled serializers, by their schema, external schemas and options (as JSON). */
const serializers = new Map<string, Serialize>();

const buildSerializer: BuildSerializer = (externalSchemas, options) =>
  keptByJson(
    serializers,
    JSON.stringify([externalSchemas, options ?? {}]),
    selectSerializer(externalSchemas, options),
  );

const selectValidator = AjvCompiler() as unknown as (
  externalSchemas: unknown,
  options: unknown,
) => CompileValidator;
/** The compiled validators, by their schema, external schemas and options (as JSON). */
const validators = new Map<string, unknown>();

function buildValidator(externalSchemas: unknown, options: unknown): CompileValidator {
  const compile = keptByJson(
    validators,
    JSON.stringify([externalSchemas, options ?? {}]),
    selectValidator(externalSchemas, options),
  );
  return (part) => {
    if (part.httpPart === 'headers') refuseHeaderNamesNotLowerCase(part.schema, part.url);
    return compile(part);
  };
}

/** A header schema whose `properties` or `required` name a header otherwise than in lower case. */
function refuseHeaderNamesNotLowerCase(schema: unknown, url: string): void {
  const { properties = {}, required = [] } = schema as {
    properties?: Record<string, unknown>;
    required?: string[];
  };
  const named = [...Object.keys(properties), ...required];
  const wrong = named.filter((name) => name !== name.toLowerCase());
  if (wrong.length > 0) {
    throw new Error(`${url}: request headers are named in lower case in a schema (${wrong})`);
  }
}

/** Fastify's `schemaController.compilersFactory`, the same for every app of the process. */
export const sharedSchemaCompilers: CompilersFactory = {
  buildValidator: buildValidator as unknown as BuildValidator,
  buildSerializer,
};
