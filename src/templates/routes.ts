import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import fresh from 'fresh';
import { Type } from 'typebox';
import { callerOf } from '../platform/auth.js';
import type { Config } from '../platform/config.js';
import type { Db } from '../platform/db.js';
import { sha256Hex } from '../platform/hashing.js';
import { apiKeySecurity, dataOf, errorResponses } from '../platform/http-schemas.js';
import { PublishedVersion, TemplateCodeParam } from './schemas.js';
import { getLatestVersion, presentVersion } from './service.js';

export const templateRoutes: FastifyPluginAsyncTypebox<{ db: Db; config: Config }> = async (
  app,
  { db, config },
) => {
  app.get(
    '/api/v1/consent-templates/:template_code/latest',
    {
      schema: {
        tags: ['templates'],
        summary: 'Latest published version of a template',
        description: 'Carries an `ETag`; a matching `If-None-Match` answers `304` with no body.',
        security: apiKeySecurity,
        params: Type.Object({ template_code: TemplateCodeParam }),
        response: {
          200: dataOf(PublishedVersion),
          304: Type.Null({ description: 'Not modified: no body.' }),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const { tenantId } = callerOf(request);
      const latest = await getLatestVersion(db, tenantId, request.params.template_code);
      const body = JSON.stringify({ data: presentVersion(latest, config.publicBaseUrl) });
      const etag = `"${sha256Hex(body).slice(0, 32)}"`;
      reply.header('etag', etag).header('cache-control', 'no-cache');
      // Only If-None-Match decides: browsers and fetch add `Cache-Control: no-cache` to a
      // conditional request, which is meant for caches, not for us. A 304 has no body.
      if (fresh({ 'if-none-match': request.headers['if-none-match'] }, { etag }))
        return reply.code(304).send(undefined as never);
      // Already serialized, once, for the ETag: sent as it is.
      return reply.type('application/json; charset=utf-8').send(body as never);
    },
  );
};
