/**
 * The compilers shared by every app of a process (src/platform/schema-compilers.ts): an answer
 * schema or a request schema is compiled once a process, kept by its JSON, and each route still
 * answers and validates as its own schema says; a header schema must name headers in lower case.
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

/** Keeps the apps a test makes, and closes them after it. */
function closedAfterEach(): <T extends { app: FastifyInstance }>(made: T) => T {
  const apps: FastifyInstance[] = [];
  afterEach(async () => {
    for (const app of apps.splice(0)) await app.close();
  });
  return (made) => {
    apps.push(made.app);
    return made;
  };
}

describe('answer schemas compiled once a process', () => {
  const kept = closedAfterEach();
  const make = async (properties: Record<string, object>) =>
    kept(await appWith(properties)).serializer();

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

type Validate = ((data: unknown) => boolean) & { errors?: unknown };

/** An app with one route whose body and header schemas are made anew. */
async function validatingApp(
  body: Record<string, object>,
  headers: Record<string, object> = { 'x-mode': { type: 'string', enum: ['a', 'b'] } },
) {
  const app = Fastify({ schemaController: { compilersFactory: sharedSchemaCompilers } });
  let validate: Validate | undefined;
  app.post(
    '/thing',
    {
      schema: {
        body: { type: 'object', properties: body, additionalProperties: false },
        headers: { type: 'object', properties: headers },
      },
    },
    async (request) => {
      validate = request.getValidationFunction('body') as Validate;
      return { ok: true };
    },
  );
  await app.ready();
  const post = (payload: object, header = 'a') =>
    app.inject({ method: 'POST', url: '/thing', payload, headers: { 'X-Mode': header } });
  return { app, post, validate: () => validate };
}

describe('request schemas compiled once a process', () => {
  const kept = closedAfterEach();
  const make = async (body: Record<string, object>) => kept(await validatingApp(body));

  it('two apps whose routes make the same schema share one validator, and validate by it', async () => {
    const first = await make({ n: { type: 'integer' } });
    const second = await make({ n: { type: 'integer' } });
    expect((await first.post({ n: 1 })).statusCode).toBe(200);
    expect((await second.post({ n: 1 })).statusCode).toBe(200);
    expect(second.validate()).toBe(first.validate());
    expect((await second.post({ n: 'one' })).statusCode).toBe(400);
  });

  it('a schema that differs in one field gets a validator of its own', async () => {
    const integer = await make({ n: { type: 'integer' } });
    const text = await make({ n: { type: 'string' } });
    expect((await integer.post({ n: 'one' })).statusCode).toBe(400);
    expect((await text.post({ n: 'one' })).statusCode).toBe(200);
    expect(text.validate()).not.toBe(integer.validate());
  });

  it('checks a header whatever the case it is sent in', async () => {
    const { post } = await make({ n: { type: 'integer' } });
    expect((await post({ n: 1 }, 'b')).statusCode).toBe(200);
    const refused = await post({ n: 1 }, 'c');
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toMatch(
      /headers\/x-mode must be equal to one of the allowed values/,
    );
  });

  it('refuses a header schema that names a header otherwise than in lower case', async () => {
    await expect(
      validatingApp({ n: { type: 'integer' } }, { 'X-Mode': { type: 'string' } }),
    ).rejects.toThrow('/thing: request headers are named in lower case in a schema (X-Mode)');
  });
});
