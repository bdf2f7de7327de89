import type { FastifyInstance } from 'fastify';
import { takeFlash } from '../../accounts/index.js';
import type { Db } from '../../platform/db.js';
import { getRelease, getTemplateByCode, releasePartners } from '../../templates/index.js';
import { tenantOf } from '../web/context.js';
import { html } from '../web/html.js';
import { basePath } from '../web/layout.js';
import { draftForm, keptDraft, keptNotice, partnerChoice, savedValues } from './draft-form.js';
import { otherLocalePanel } from './locale-routes.js';
import { versionPath } from './review-views.js';
import { showVersionPage } from './version-page.js';

type Params = { code: string; id: string };

/**
 * A version's page: on `?locale=` another locale's tab; on a draft the user may edit, its form
 * (with the text kept through signing in again, or "Draft saved." once after a save).
 */
export async function versionRoutes(app: FastifyInstance, { db }: { db: Db }) {
  app.get<{ Params: Params }>(
    '/templates/:code/versions/:id',
    { config: { permission: 'templates:view' } },
    async (request, reply) => {
      const { tenantId, permissions } = tenantOf(request);
      const template = await getTemplateByCode(db, tenantId, request.params.code);
      const version = await getRelease(db, template, request.params.id);
      const other = await otherLocalePanel(db, request, reply, template, version);
      if (other) return showVersionPage(db, request, reply, { template, version, other });
      const path = versionPath(template.code, version.id);
      const draft = version.status === 'draft';
      const [kept, notice] = await Promise.all([
        draft ? keptDraft(db, request, path) : undefined,
        takeFlash(db, request.backofficeSessionToken, `notice:${basePath}${path}`),
      ]);
      const mayEdit = draft && permissions.has('versions:edit');
      const chosen = mayEdit ? await releasePartners(db, template, version.id) : [];
      const form = mayEdit
        ? draftForm(
            reply,
            template,
            version,
            kept ?? savedValues(version),
            undefined,
            await partnerChoice(
              db,
              tenantId,
              chosen.map((p) => p.code),
            ),
          )
        : undefined;
      return showVersionPage(db, request, reply, {
        template,
        version,
        form: form && kept ? html`${keptNotice}${form}` : form,
        notice: notice === 'saved' && draft ? 'Draft saved.' : undefined,
      });
    },
  );
}
