import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { callerOf } from '../api-keys/index.js';
import {
  answer,
  apiKeySecurity,
  dataOf,
  errorsOf,
  keyedErrors,
  responseHeaders,
} from '../platform/http-schemas.js';
import { sendReadAnswer } from '../platform/read-answer.js';
import { LocaleQuery, latestAnswer, localesOf } from './answer.js';
import type { Catalog, LatestRelease } from './catalog.js';
import { PublishedVersion, TemplateCodeParam } from './schemas.js';

export const templateRoutes: FastifyPluginAsyncTypebox<{ catalog: Catalog }> = async (
  app,
  { catalog },
) => {
  app.get(
    '/api/v1/consent-templates/:template_code/latest',
    {
      schema: {
        tags: ['templates'],
        operationId: 'getLatestVersion',
        summary: 'Latest published version of a template',
        description:
          'Carries an `ETag`; a matching `If-None-Match` answers `304` with no body. The ' +
          'variant in the locale `?locale=` or `Accept-Language` asks for (the exact tag, then ' +
          "its language, then the template's default locale) carries `locale`, with " +
          '`Content-Language` and `Vary: Accept-Language`; a request naming no locale gets the ' +
          'default locale without them.',
        security: apiKeySecurity,
        params: Type.Object({ template_code: TemplateCodeParam }),
        querystring: LocaleQuery,
        response: {
          200: answer(dataOf(PublishedVersion), 'The latest published version, V.', {
            etag: responseHeaders.etag,
            'content-language': responseHeaders.contentLanguage,
          }),
          304: answer(Type.Null(), 'Not modified: the `If-None-Match` tag is current. No body.', {
            etag: responseHeaders.etag,
          }),
          ...errorsOf('invalidRequest', 'templateNotFound', ...keyedErrors),
        },
      },
    },
    // No promise when the release is in memory (nearly every request): answered in this turn.
    (request, reply) => {
      const { tenantId } = callerOf(request);
      const code = request.params.template_code;
      const release = catalog.latestInMemory(tenantId, code);
      if (release) {
        answerLatest(request, reply, release);
        return;
      }
      return catalog.latest(tenantId, code).then((read) => answerLatest(request, reply, read));
    },
  );

  function answerLatest(
    request: FastifyRequest,
    reply: FastifyReply,
    release: LatestRelease,
  ): void {
    const answer = latestAnswer(release, localesOf(request), request.headers['if-none-match']);
    sendReadAnswer(reply, answer);
  }
};
