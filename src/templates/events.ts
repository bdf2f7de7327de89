import { writeJournal } from '../journal/index.js';
import type { Trx } from '../platform/db.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/time.js';
import type { TemplateVersionRow } from './table.js';

/** A version's public fields, as an event carries them. */
interface VersionData {
  consent_version_id: string;
  template_code: string;
  version: number | null;
  tag: string;
  locale?: string | undefined;
  allow_reconsent: boolean;
  published_at: string | null;
}

/** Queues a version's event (approved, published, scheduled, archived) in its transaction. */
async function queueVersionEvent(
  trx: Trx,
  tenantId: string,
  type: `version.${string}`,
  data: VersionData & { archived_at?: string },
  occurredAt: string,
): Promise<void> {
  const event = {
    tenant_id: tenantId,
    id: newId(),
    type,
    record_id: null,
    subject_id: null,
    data: JSON.stringify(data),
    occurred_at: occurredAt,
  };
  await writeJournal(trx, { events: [event] });
}

/** A version's public fields, as its webhook events carry them. */
function versionData(row: TemplateVersionRow, templateCode: string): VersionData {
  return {
    consent_version_id: row.id,
    template_code: templateCode,
    version: row.version,
    tag: row.tag,
    locale: row.locale,
    allow_reconsent: row.allow_reconsent === 1,
    published_at: row.published_at,
  };
}

/**
 * A publication's event, in its transaction (`publishDraft` queues it): `version.scheduled` when
 * its go-live time (its `published_at`) is to come, `version.published` when it is live at once.
 */
export async function queuePublished(
  trx: Trx,
  row: TemplateVersionRow,
  templateCode: string,
  scheduled: boolean,
): Promise<void> {
  const type = scheduled ? 'version.scheduled' : 'version.published';
  await queueVersionEvent(trx, row.tenant_id, type, versionData(row, templateCode), nowIso());
}

/** An approval's event (the review's last step; its publication follows it). */
export async function queueApproved(
  trx: Trx,
  row: TemplateVersionRow,
  templateCode: string,
): Promise<void> {
  const data = versionData(row, templateCode);
  await queueVersionEvent(trx, row.tenant_id, 'version.approved', data, nowIso());
}

/** A template taken out of use: its latest version's event. */
export async function queueArchived(
  trx: Trx,
  row: TemplateVersionRow,
  templateCode: string,
  archivedAt: string,
): Promise<void> {
  const data = { ...versionData(row, templateCode), archived_at: archivedAt };
  await queueVersionEvent(trx, row.tenant_id, 'version.archived', data, archivedAt);
}
