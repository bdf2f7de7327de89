import multipart, { type MultipartFile } from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../platform/db.js';
import { AppError } from '../../platform/errors.js';
import type { TemplateRow, TemplateVersionRow } from '../../templates/index.js';
import {
  attachContentFile,
  contentFileOf,
  getTemplateByCode,
  getVersion,
  maxContentFileBytes,
  removeContentFile,
  type Upload,
} from '../../templates/index.js';
import { auditBy, tenantOf } from '../web/context.js';
import { noRefusal } from '../web/forms.js';
import { segment } from '../web/html.js';
import { redirectTo } from '../web/layout.js';
import { otherLocalePanel } from './locale-routes.js';
import { versionPath } from './review-views.js';
import { showVersionPage } from './version-page.js';

type Params = { code: string; id: string };

/**
 * The version's page again, with why its file was refused: the release's own, or, for another
 * locale's file, the release's page on that locale's tab.
 */
async function showFileError(
  db: Db,
  request: FastifyRequest,
  reply: FastifyReply,
  template: TemplateRow,
  version: TemplateVersionRow,
  fileError: string,
) {
  if (version.id === version.release_id) {
    return showVersionPage(db, request, reply, { template, version, status: 400, fileError });
  }
  const release = await getVersion(db, template, version.release_id);
  const other = await otherLocalePanel(
    db,
    request,
    reply,
    template,
    release,
    undefined,
    noRefusal,
    {
      locale: version.locale,
      error: fileError,
    },
  );
  return showVersionPage(db, request, reply, { template, version: release, status: 400, other });
}

/**
 * A draft's content file: upload (a multipart form, the only one of the back-office, so parsed
 * here alone), remove, and see it. The rules (size, type by content, drafts only) are the
 * service's.
 */
export async function contentFileRoutes(app: FastifyInstance, { db }: { db: Db }) {
  await app.register(multipart, {
    // Fields land in the body, so the form token is checked as for any form; the file is
    // read here, at most one and cut at the limit (the service refuses a cut file).
    attachFieldsToBody: 'keyValues',
    throwFileSizeLimit: false,
    limits: { fileSize: maxContentFileBytes, files: 1, fields: 4, parts: 5 },
    async onFile(part: MultipartFile) {
      const bytes = await part.toBuffer();
      const upload: Upload = { fileName: part.filename, bytes, truncated: part.file.truncated };
      (part as unknown as { value: Upload }).value = upload;
    },
  });

  const target = async (request: FastifyRequest<{ Params: Params }>) => {
    const { tenantId } = tenantOf(request);
    const template = await getTemplateByCode(db, tenantId, request.params.code);
    return { template, version: await getVersion(db, template, request.params.id) };
  };
  /** The page the file is on: the release's, on the variant's tab when it is another locale's. */
  const pageOf = (template: TemplateRow, version: TemplateVersionRow, notice: string) => {
    const path = versionPath(template.code, version.release_id);
    return version.id === version.release_id
      ? `${path}?notice=${notice}`
      : `${path}?locale=${segment(version.locale)}&notice=${notice}`;
  };

  app.post<{ Params: Params }>(
    '/templates/:code/versions/:id/file',
    { config: { permission: 'versions:edit' } },
    async (request, reply) => {
      const { template, version } = await target(request);
      const file = (request.body as { file?: unknown } | undefined)?.file;
      const upload: Upload =
        typeof file === 'object' && file !== null && 'bytes' in file
          ? (file as Upload)
          : { fileName: '', bytes: Buffer.alloc(0), truncated: false };
      try {
        await db
          .transaction()
          .execute((trx) => attachContentFile(trx, auditBy(request), template, version.id, upload));
      } catch (error) {
        if (!(error instanceof AppError) || error.status !== 400) throw error;
        return showFileError(db, request, reply.code(400), template, version, error.message);
      }
      return redirectTo(reply, pageOf(template, version, 'file_uploaded'));
    },
  );

  app.post<{ Params: Params }>(
    '/templates/:code/versions/:id/file/remove',
    { config: { permission: 'versions:edit' } },
    async (request, reply) => {
      const { template, version } = await target(request);
      await db
        .transaction()
        .execute((trx) => removeContentFile(trx, auditBy(request), template, version.id));
      return redirectTo(reply, pageOf(template, version, 'file_removed'));
    },
  );

  app.get<{ Params: Params }>(
    '/templates/:code/versions/:id/file',
    { config: { permission: 'templates:view' } },
    async (request, reply) => {
      const { version } = await target(request);
      const file = await contentFileOf(db, version);
      if (!file) throw new AppError('notFound');
      return reply
        .type(file.media_type === 'text/html' ? 'text/html; charset=utf-8' : file.media_type)
        .header('content-security-policy', "default-src 'none'; img-src http: https:; sandbox")
        .header('x-content-type-options', 'nosniff')
        .send(Buffer.from(file.content_base64, 'base64'));
    },
  );
}
