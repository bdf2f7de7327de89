import type { FastifyPluginAsync } from 'fastify';
import type { Cosigner } from '../proof/index.js';
import type { KnownLog } from './logs-file.js';
import { addCheckpoint, cosignedCheckpoint } from './service.js';
import type { WitnessDb } from './table.js';

/** A checkpoint with its proof and a few dozen signatures is a few kilobytes. */
const bodyLimit = 64 * 1024;

/**
 * The witness side of C2SP tlog-witness: `POST /add-checkpoint` and, for monitors,
 * `GET /<SHA-256 of the origin, hex>/checkpoint`. Answers are plain text, as the spec has them.
 */
export const witnessRoutes: FastifyPluginAsync<{
  db: WitnessDb;
  cosigner: Cosigner;
  logs: readonly KnownLog[];
}> = async (app, { db, cosigner, logs }) => {
  // The spec names no request type: whatever it is sent as, the body is read as text.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit }, (_request, body, done) =>
    done(null, body),
  );

  app.post('/add-checkpoint', async (request, reply) => {
    const body = typeof request.body === 'string' ? request.body : '';
    const answer = await addCheckpoint(db, cosigner, logs, body);
    if (answer.status !== 200) {
      request.log.warn(
        { origin: answer.origin, status: answer.status, reason: answer.body.trim() },
        'checkpoint not cosigned',
      );
    } else {
      request.log.info({ origin: answer.origin }, 'checkpoint cosigned');
    }
    return reply.code(answer.status).type(answer.contentType).send(answer.body);
  });

  app.get<{ Params: { hash: string } }>('/:hash/checkpoint', async (request, reply) => {
    const checkpoint = /^[0-9a-f]{64}$/.test(request.params.hash)
      ? await cosignedCheckpoint(db, request.params.hash)
      : undefined;
    reply.type('text/plain; charset=utf-8');
    if (checkpoint === undefined) return reply.code(404).send('no checkpoint cosigned\n');
    return reply.header('cache-control', 'no-store').send(checkpoint);
  });
};
