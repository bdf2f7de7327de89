import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import fresh from 'fresh';
import { Type } from 'typebox';
import { callerOf } from '../api-keys/auth.js';
import { apiKeySecurity, dataOf, errorResponses } from '../platform/http-schemas.js';
import type { Catalog } from './catalog.js';
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
      const { body, etag } = await catalog.latest(tenantId, request.params.template_code);
      reply.header('etag', etag).header('cache-control', 'no-cache');
      // Only If-None-Match decides: browsers and fetch add `Cache-Control: no-cache` to a
      // conditional request, which is meant for caches, not for us. A 304 has no body.
      if (fresh({ 'if-none-match': request.headers['if-none-match'] }, { etag }))
        return reply.code(304).send(undefined as never);
      // Serialized once per version, with its ETag: sent as it is.
      return reply.type('application/json; charset=utf-8').send(body as never);
    },
  );
};
