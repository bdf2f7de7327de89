import { type Actor, recordAudit } from '../audit-trail/index.js';
import type { Trx } from '../platform/db.js';
import { publishDraft, type VersionWithCode } from './service.js';
import type { TemplateRow, TemplateVersionRow } from './table.js';

/** How a release is published: by whom, from which status, when, and what its audit entry adds. */
export interface Publication {
  by: Actor;
  from: 'draft' | 'reviewed';
  /** The go-live time (a stored-form instant); at once when absent or past. */
  effectiveAt?: string | undefined;
  /** Customers who decided on the latest version before it (`publishEffect`): they become pending. */
  customersMadePending: number;
  /** What the audit entry says besides the version: the locales it drops, a review bypassed. */
  details?: Record<string, unknown>;
}

/**
 * Publishes a release (see `publishDraft`) and writes its `version.published` audit entry, with
 * the number of customers it made pending and its go-live time when later: every way of
 * publishing (approval, the command line, the demo) goes through here.
 */
export async function publishRelease(
  trx: Trx,
  template: TemplateRow,
  draft: TemplateVersionRow,
  publication: Publication,
): Promise<VersionWithCode> {
  const { by, from, effectiveAt, customersMadePending, details } = publication;
  const published = await publishDraft(trx, draft, template.code, by.actor, from, effectiveAt);
  await recordAudit(trx, {
    ...by,
    action: 'version.published',
    target: `${template.code} ${published.tag}`,
    details: {
      version_id: published.id,
      version: published.version,
      customers_made_pending: customersMadePending,
      // Later than the moment it was published: it goes live then.
      ...(published.published_at !== null && published.published_at > published.updated_at
        ? { effective_at: published.published_at }
        : {}),
      ...details,
    },
  });
  return { ...published, template_code: template.code };
}
