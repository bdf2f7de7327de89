import type { FastifyRequest } from 'fastify';
import type { Editor } from '../../cookies/index.js';
import { auditBy, tenantOf } from '../web/context.js';
import { type Html, html } from '../web/html.js';
import { basePath, sectionPage } from '../web/layout.js';

const notices: Record<string, string> = {
  system_created: 'System added. Its script tag is shown once a configuration is published.',
  system_changed: 'System saved.',
  created: 'Configuration created as a draft.',
  copied: 'A new draft made from that configuration.',
  saved: 'Draft saved.',
  locale_added: 'Locale added: its texts start from the built-in ones or the default locale.',
  locale_removed: 'Locale removed from the draft.',
  submitted: 'Submitted for review.',
  passed: 'Review passed: it now waits for an approver.',
  sent_back: 'Sent back to draft.',
  approved: 'Approved. Publish it to put it on the site.',
  published: 'Published: the banner script serves it within a second.',
  unpublished: 'Unpublished: the banner script answers 404 within a second.',
  rejected: 'Rejected.',
  deleted: 'Draft deleted.',
  schedule_set: 'Schedule saved: the first scan runs within a few minutes.',
  schedule_off: 'The system is no longer scanned on a schedule.',
  scanned_added:
    'The last scan’s cookies are in the lists below, with who sets them and for how long: check them before you submit.',
  scanned_none: 'The last scan found no cookie that the draft’s categories do not list already.',
  no_scan: 'This system has no finished scan yet: scan it from its page first.',
  override_set: 'Classification saved: the next scans use it.',
  override_removed: 'Classification removed.',
};

/** The page sender of the cookie pages, with the confirmations their `?notice=` names. */
export const cookiesPage = sectionPage('cookies', notices);

/** Who acts on a configuration from a page: the audit's actor and the user four eyes compares. */
export function editorOf(request: FastifyRequest): Editor {
  return { ...auditBy(request), userId: tenantOf(request).userId };
}

type Tab = 'configurations' | 'systems' | 'decisions' | 'classification';

/** The cookie pages' own navigation: every tab needs `cookies:view`, as the section does. */
export function cookieTabs(current: Tab): Html {
  const tab = (name: Tab, href: string, label: string) =>
    html`<li><a href="${basePath}${href}"${current === name ? html` aria-current="page"` : ''}>${label}</a></li>`;
  return html`<nav aria-label="Cookies" class="section-tabs"><ul>
${tab('configurations', '/cookies', 'Configurations')}
${tab('systems', '/cookies/systems', 'Systems')}
${tab('decisions', '/cookies/decisions', 'Decisions')}
${tab('classification', '/cookies/classification', 'Classification')}
</ul></nav>`;
}
