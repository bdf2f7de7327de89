/**
 * One request, both ways the service may answer it: through `app.inject` (Fastify's routing,
 * hooks and handler: what every component test exercises) and over a real socket to the same app
 * listening on loopback, where `latest` and `pending` in the common case are answered before
 * Fastify (src/app/hot-reads.ts). The two answers must be alike to the byte but for what each
 * answer has of its own (its id, the time, the rate limit's count), as Hono runs one suite
 * against every router.
 */
import { request as httpRequest } from 'node:http';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';

/** An answer as it came off the socket: header names in order, as sent. */
export interface Answer {
  status: number;
  headers: Array<[string, string]>;
  body: string;
}

/** Headers every answer has with its own value (the time, the id, the count within the window). */
const ownValue = new Set(['date', 'x-request-id', 'ratelimit-remaining', 'ratelimit-reset']);
/** Headers Node's server adds itself, not the service. */
const connectionHeaders = new Set(['date', 'connection', 'keep-alive']);

/** An answer with what differs from one answer to the next masked. */
export function comparable(answer: Answer): Answer {
  return {
    ...answer,
    headers: answer.headers
      .filter(([name]) => !connectionHeaders.has(name))
      .map(([name, value]) => [name, ownValue.has(name) ? '*' : value]),
  };
}

export function fromInject(response: LightMyRequestResponse): Answer {
  return {
    status: response.statusCode,
    headers: Object.entries(response.headers).map(([name, value]) => [name, String(value)]),
    body: response.body,
  };
}

/** The app's loopback address, once it listens. */
export function baseOf(app: FastifyInstance): string | undefined {
  const address = app.server.listening ? app.server.address() : null;
  if (address === null || typeof address === 'string') return undefined;
  return `http://127.0.0.1:${address.port}`;
}

/** A request over the socket, its headers as sent. */
export function overHttp(
  base: string,
  path: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest(`${base}${path}`, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const raw = response.rawHeaders;
        const pairs: Array<[string, string]> = [];
        for (let i = 0; i < raw.length; i += 2) {
          pairs.push([(raw[i] as string).toLowerCase(), raw[i + 1] as string]);
        }
        resolve({
          status: response.statusCode ?? 0,
          headers: pairs,
          body: Buffer.concat(chunks).toString('utf8'),
        });
      });
    });
    sent.on('error', reject);
    sent.end();
  });
}

/** How many pairs a read is asked in, when what it reads changed between the two of a pair. */
const pairs = 3;

/**
 * A GET through `inject`, then the same over the socket when the app listens (the caches the
 * first filled let the hot path answer the second): the two answers must be alike. A publish
 * landing between the two (a test that waits for one to be seen) makes them differ for a
 * reason of its own: the pair is asked again, a few times at most. Answers the injected
 * response, for the test's own assertions.
 */
export async function bothPaths(
  app: FastifyInstance,
  path: string,
  headers: Record<string, string>,
): Promise<LightMyRequestResponse> {
  const base = baseOf(app);
  for (let asked = 1; ; asked += 1) {
    const injected = await app.inject({
      method: 'GET',
      url: path,
      headers,
    } satisfies InjectOptions);
    if (base === undefined) return injected;
    const socket = comparable(await overHttp(base, path, headers));
    const fastify = comparable(fromInject(injected));
    if (asked === pairs || JSON.stringify(socket) === JSON.stringify(fastify)) {
      expect(socket, `GET ${path} answered alike before and through Fastify`).toEqual(fastify);
      return injected;
    }
  }
}
