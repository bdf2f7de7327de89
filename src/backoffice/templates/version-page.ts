import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../platform/db.js';
import type { TemplateRow, TemplateVersionRow } from '../../templates/index.js';
import {
  contentFileOf,
  listVariants,
  releaseEdits,
  reviewTimeline,
} from '../../templates/index.js';
import { tenantOf, zoneOf } from '../web/context.js';
import type { Html } from '../web/html.js';
import { basePath, csrfToken } from '../web/layout.js';
import { contentFileSection } from './file-views.js';
import { localeTabs } from './locale-views.js';
import { templateModel, versionModel } from './models.js';
import { versionPath } from './review-views.js';
import { templatesPage } from './section.js';
import { versionPage } from './views.js';

/** What a version's page shows besides the version itself. */
export interface VersionPageOptions {
  template: TemplateRow;
  version: TemplateVersionRow;
  /** The draft's form, when the user may edit it. */
  form?: Html | undefined;
  status?: number;
  notice?: string | undefined;
  /** Why its content file was refused. */
  fileError?: string | undefined;
  /** Another locale's tab, instead of the release's own text. */
  other?: { locale: string; panel: Html } | undefined;
}

/** A version's page: its facts, timeline, locale tabs, content file and, on a draft, its form. */
export async function showVersionPage(
  db: Db,
  request: FastifyRequest,
  reply: FastifyReply,
  o: VersionPageOptions,
) {
  const { template, version, other } = o;
  const path = `${basePath}${versionPath(template.code, version.id)}/file`;
  const mayEdit = tenantOf(request).permissions.has('versions:edit');
  const [steps, edits, file, variants] = await Promise.all([
    reviewTimeline(db, version),
    releaseEdits(db, version),
    contentFileOf(db, version),
    listVariants(db, version),
  ]);
  const tabs =
    variants.length > 1 || (version.status === 'draft' && mayEdit)
      ? localeTabs({
          path: `${basePath}${versionPath(template.code, version.id)}`,
          locales: variants.map((v) => v.locale),
          selected: other?.locale ?? version.locale,
          mayAdd: version.status === 'draft' && mayEdit,
        })
      : undefined;
  return templatesPage(
    request,
    reply,
    `${template.code} ${version.tag}`,
    versionPage({
      template: templateModel(template),
      version: versionModel(version),
      form: o.form,
      zone: zoneOf(request),
      steps,
      edits,
      maySubmit: mayEdit,
      localeTabs: tabs,
      otherLocale: other?.panel,
      contentFile: contentFileSection({
        file,
        href: path,
        action: version.status === 'draft' && mayEdit ? path : undefined,
        csrfToken: csrfToken(reply),
        error: o.fileError,
      }),
    }),
    o.status ?? 200,
    o.notice,
  );
}
