import type { FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { LogController } from 'fastify';
import { redactSecrets } from './redact.js';

/**
 * Fastify's two lines per request (received, completed) replaced by one, so this is the
 * `logController` to build the app with.
 */
export const oneLinePerRequest: FastifyServerOptions['logController'] = new LogController({
  disableRequestLogging: true,
});

/**
 * One `request completed` line per request, of flat fields: running Fastify's request and reply
 * serializers instead cost a fifth of `latest`. The benchmark's bare Fastify app logs with this
 * too (bench/fastify-server.mjs), so that its row differs from the service by the service's work.
 * The URL is logged with its secrets redacted (`redactSecrets`).
 */
export function logEachRequest(app: FastifyInstance): void {
  // A callback hook: an async one costs a promise and a microtask turn per request.
  app.addHook('onResponse', (request, reply, done) => {
    logCompleted(request, reply);
    done();
  });
}

/**
 * The `request completed` line, for the requests no hook sees: those the router refused before
 * routing them (Fastify's `frameworkErrors`), logged when their answer has been sent.
 */
export function logWhenSent(request: FastifyRequest, reply: FastifyReply): void {
  reply.raw.once('finish', () => logCompleted(request, reply));
}

function logCompleted(request: FastifyRequest, reply: FastifyReply): void {
  request.log.info(
    {
      method: request.method,
      // No key, token or password reaches the log, even one a client put in the URL.
      url: redactSecrets(request.url),
      statusCode: reply.statusCode,
      responseTime: reply.elapsedTime,
      remoteAddress: request.ip,
    },
    'request completed',
  );
}
