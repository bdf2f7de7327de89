import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { toAppError } from '../platform/error-handler.js';
import { defaultPageHeaders, messageFrame } from './frame-defaults.js';
import { localeOf } from './locale.js';
import { type PageRouteOptions, pageRoutes } from './routes.js';
import { messagePage } from './views.js';
import { words } from './words.js';

/**
 * The customer's own pages under /preferences: server-rendered, no script, their own cookie,
 * form parser and error pages (HTML, saying nothing of any customer). `/api` is untouched.
 */
export async function preferencePage(app: FastifyInstance, options: PageRouteOptions) {
  await app.register(
    async (scope) => {
      await scope.register(cookie);
      await scope.register(formbody);
      scope.setErrorHandler((error: FastifyError, request, reply) =>
        sendErrorPage(error, request, reply),
      );
      await scope.register(pageRoutes, options);
    },
    { prefix: '/preferences' },
  );
}

function sendErrorPage(error: unknown, request: FastifyRequest, reply: FastifyReply) {
  const appError = toAppError(error);
  const status = appError.status;
  const { locale } = localeOf(request);
  const w = words[locale];
  const [title, text] =
    status === 404
      ? [w.notFound, w.notFoundText]
      : status < 500
        ? [w.badRequest, w.badRequestText]
        : [w.failed, w.failedText(request.id)];
  if (status >= 500) request.log.error({ err: error }, 'preference page failed');
  else request.log.info({ status, reason: appError.message }, 'preference page refusal');
  return reply
    .code(status)
    .headers(defaultPageHeaders)
    .type('text/html; charset=utf-8')
    .send(messagePage(messageFrame(locale), title, text));
}
