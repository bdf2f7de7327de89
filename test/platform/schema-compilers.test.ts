/**
 * The answers' serializers shared by every app of a process (src/platform/schema-compilers.ts):
 * an answer schema is compiled once a process, kept by its JSON, and each route still answers
 * as its own schema says.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { sharedSchemaCompilers } from '../../src/platform/schema-compilers.js';

type Serialize = (data: unknown) => string;

/** What each route answers: the schema drops what it does not name. */
const data = { id: 'a1', count: 2, secret: 's' };

/** An app with one route whose answer schema is made anew, as most routes make theirs. */
async function appWith(properties: Record<string, object>): Promise<{
  app: FastifyInstance;
  serializer: () => Promise<{ serialize: Serialize; body: string }>;
}> {
  const app = Fastify({ schemaController: { compilersFactory: sharedSchemaCompilers } });
  let serialize: Serialize | undefined;
  app.get(
    '/thing',
    { schema: { response: { 200: { type: 'object', properties } } } },
    async (_request, reply) => {
      serialize = reply.getSerializationFunction('200') as Serialize;
      return data;
    },
  );
  await app.ready();
  return {
    app,
    async serializer() {
      const response = await app.inject({ method: 'GET', url: '/thing' });
      if (!serialize) throw new Error('the route did not run');
      return { serialize, body: response.body };
    },
  };
}

describe('answer schemas compiled once a process', () => {
  const apps: FastifyInstance[] = [];
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
  });
  const make = async (properties: Record<string, object>) => {
    const made = await appWith(properties);
    apps.push(made.app);
    return made.serializer();
  };

  it('two apps whose routes make the same schema share one serializer, and answer by it', async () => {
    const first = await make({ id: { type: 'string' }, count: { type: 'integer' } });
    const second = await make({ id: { type: 'string' }, count: { type: 'integer' } });
    expect(second.serialize).toBe(first.serialize);
    expect(first.body).toBe('{"id":"a1","count":2}');
    expect(second.body).toBe('{"id":"a1","count":2}');
  });

  it('a schema that differs in one field gets a serializer of its own', async () => {
    const narrow = await make({ id: { type: 'string' } });
    const wide = await make({ id: { type: 'string' }, secret: { type: 'string' } });
    expect(wide.serialize).not.toBe(narrow.serialize);
    expect(narrow.body).toBe('{"id":"a1"}');
    expect(wide.body).toBe('{"id":"a1","secret":"s"}');
  });
});
