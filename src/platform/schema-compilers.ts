/**
 * The compiler of the routes' answer schemas (fast-json-stringify), shared by every app this
 * process builds. Compiling them was a third of what building an app cost (a profile of the
 * tests' apps): the tests build hundreds of apps in one process, and each answer schema is now
 * compiled once a process instead of once an app. A compiled serializer is a pure function of the
 * schema's JSON, so sharing it changes no answer; it is kept by that JSON, since many routes make
 * their schemas as they register (the error answers of each status, for one).
 *
 * Request validation keeps Fastify's own compilers: a custom one would change how Fastify
 * prepares a schema of request headers.
 */
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type CompilersFactory = NonNullable<
  NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']
>;
type BuildSerializer = NonNullable<CompilersFactory['buildSerializer']>;
type Serialize = ReturnType<ReturnType<BuildSerializer>>;

const selectSerializer = SerializerSelector();

/** The compiled serializers, by their schema, external schemas and options (as JSON). */
const serializers = new Map<string, Serialize>();

const buildSerializer: BuildSerializer = (externalSchemas, options) => {
  const compile = selectSerializer(externalSchemas, options);
  const context = JSON.stringify([externalSchemas, options ?? {}]);
  return (route) => {
    const key = `${JSON.stringify(route.schema)}\u0000${context}`;
    let serialize = serializers.get(key);
    if (!serialize) {
      serialize = compile(route);
      serializers.set(key, serialize);
    }
    return serialize;
  };
};

/** Fastify's `schemaController.compilersFactory`, the same for every app of the process. */
export const sharedSchemaCompilers: CompilersFactory = { buildSerializer };
