import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Db } from '../platform/db.js';
import { errorResponses } from '../platform/http-schemas.js';
import { getPublishedContent } from './service.js';

const contentFile =
  /^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\.html$/;

/**
 * The public content file (contract section 7): a published version as a whole HTML document,
 * no key, cacheable for ever since a published version never changes.
 */
export const contentRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.get(
    '/api/content/:file',
    {
      schema: {
        tags: ['templates'],
        summary: 'Content of a published version as an HTML document',
        params: Type.Object({ file: Type.String({ pattern: contentFile.source }) }),
        response: {
          200: Type.String({ description: 'text/html; charset=utf-8' }),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const id = contentFile.exec(request.params.file)?.[1] ?? '';
      const version = await getPublishedContent(db, id);
      // Client apps show this file in web views and frames on their own sites.
      reply.removeHeader('x-frame-options');
      return reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('content-security-policy', "default-src 'none'; img-src http: https:; sandbox")
        .header('x-content-type-options', 'nosniff')
        .send(htmlDocument(`${version.template_name} ${version.tag}`, version.content_html));
    },
  );
};

function htmlDocument(title: string, body: string): string {
  return `<!doctype html>
<html>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeText(title)}</title>
</head>
<body>
${body}
</body>
</html>
`;
}

function escapeText(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
