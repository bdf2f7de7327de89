import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { LogController } from 'fastify';

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
 */
export function logEachRequest(app: FastifyInstance): void {
  // A callback hook: an async one costs a promise and a microtask turn per request.
  app.addHook('onResponse', (request, reply, done) => {
    request.log.info(
      {
        method: request.method,
        url: request.url,
        statusCode: reply.statusCode,
        responseTime: reply.elapsedTime,
        remoteAddress: request.ip,
      },
      'request completed',
    );
    done();
  });
}
