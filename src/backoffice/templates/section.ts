import type { FastifyRequest } from 'fastify';
import type { Author } from '../../templates/index.js';
import { auditBy, tenantOf } from '../web/context.js';
import { sectionPage } from '../web/layout.js';

const notices: Record<string, string> = {
  created: 'Template created.',
  published: 'Version published. The API answers it within a second.',
  scheduled: 'Version approved and scheduled: the API answers it from its go-live time.',
  deleted: 'Template deleted, with its drafts.',
  archived: 'Template archived: within a second the API answers 404 for it.',
  restored: 'Template restored: the API answers its latest version again.',
  changed: 'Template changed.',
  file_uploaded: 'Content file uploaded.',
  locale_saved: 'Locale saved.',
  locale_removed: 'Locale removed from the draft.',
  file_removed: 'Content file removed.',
};

/** The page sender of the templates' pages, with the confirmations their `?notice=` names. */
export const templatesPage = sectionPage('templates', notices);

/** Who acts on a version from a page: the audit log's actor and the user four eyes compares. */
export function authorOf(request: FastifyRequest): Author {
  return { ...auditBy(request), userId: tenantOf(request).userId };
}
