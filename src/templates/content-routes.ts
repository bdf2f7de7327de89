import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { create as contentDisposition } from 'content-disposition';
import { Type } from 'typebox';
import type { Db } from '../platform/db.js';
import { errorsOf, noSecurity } from '../platform/http-schemas.js';
import { publishedContentFile } from './files.js';
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
        operationId: 'getContentFile',
        summary: 'Content of a published version as an HTML document',
        description:
          "The `file_url` of a version that has no file of its own: the version's " +
          '`content_html` as a complete HTML document. No key; cached for ever (a published ' +
          'version never changes).',
        security: noSecurity,
        params: Type.Object({
          file: Type.String({
            pattern: contentFile.source,
            description: 'The consent version id, then `.html`.',
          }),
        }),
        response: {
          200: {
            description: 'The HTML document (`text/html; charset=utf-8`).',
            content: { 'text/html': { schema: Type.String() } },
          },
          ...errorsOf('invalidRequest', 'versionNotFound', 'internal', 'unavailable'),
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

/**
 * An uploaded content file of a live version, as uploaded: no key, cacheable for ever like the
 * content file above, never run (sandboxed, no scripts) and never sniffed as another type.
 */
export const uploadedFileRoutes: FastifyPluginAsyncTypebox<{ db: Db }> = async (app, { db }) => {
  app.get(
    '/api/content/:id/:file',
    {
      schema: {
        tags: ['templates'],
        operationId: 'getUploadedContentFile',
        summary: "A published version's uploaded content file (PDF or HTML)",
        description:
          'The `file_url` of a version whose file was uploaded in the back-office, as uploaded. ' +
          'No key; cached for ever.',
        security: noSecurity,
        params: Type.Object({
          id: Type.String({ format: 'uuid', description: 'The consent version id.' }),
          file: Type.Union([Type.Literal('file.pdf'), Type.Literal('file.html')]),
        }),
        response: {
          200: {
            description: 'The file as uploaded, `Content-Disposition: inline` with its name.',
            content: {
              'application/pdf': {
                schema: Type.Unsafe<Buffer>({
                  type: 'string',
                  contentMediaType: 'application/pdf',
                }),
              },
              'text/html': { schema: Type.Unsafe<Buffer>({ type: 'string' }) },
            },
          },
          ...errorsOf('invalidRequest', 'versionNotFound', 'internal', 'unavailable'),
        },
      },
    },
    async (request, reply) => {
      const type = request.params.file === 'file.pdf' ? 'application/pdf' : 'text/html';
      const file = await publishedContentFile(db, request.params.id, type);
      reply.removeHeader('x-frame-options');
      return reply
        .type(type === 'text/html' ? 'text/html; charset=utf-8' : type)
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('content-security-policy', "default-src 'none'; img-src http: https:; sandbox")
        .header('x-content-type-options', 'nosniff')
        .header('content-disposition', contentDisposition(file.file_name, { type: 'inline' }))
        .send(Buffer.from(file.content_base64, 'base64'));
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
