import { type Actor, recordAudit } from '../audit-trail/index.js';
import { type ListedPartner, partnersOfRelease, setReleasePartners } from '../partners/index.js';
import type { Executor, Trx } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { getRelease, lockPublishes, statusWords } from './service.js';
import type { TemplateRow } from './table.js';

export type { ListedPartner };

/** The partners a release lists, by code. */
export function releasePartners(
  db: Executor,
  template: TemplateRow,
  releaseId: string,
): Promise<ListedPartner[]> {
  return partnersOfRelease(db, template.tenant_id, releaseId);
}

/** What a release's list of partners gained and lost against another's (by code). */
export function partnerChanges(
  before: readonly ListedPartner[],
  after: readonly ListedPartner[],
): { added: ListedPartner[]; removed: ListedPartner[] } {
  const had = new Set(before.map((p) => p.code));
  const has = new Set(after.map((p) => p.code));
  return {
    added: after.filter((p) => !had.has(p.code)),
    removed: before.filter((p) => !has.has(p.code)),
  };
}

/**
 * Sets the partners a draft release lists, as its text does (frozen with the text once it leaves
 * draft: `409 1005`), and records what changed; `400 1001` naming `partners` for a code the
 * tenant has no partner of. Nothing is recorded when the list stays the same.
 */
export async function setDraftPartnersAs(
  trx: Trx,
  actor: Actor,
  template: TemplateRow,
  releaseId: string,
  codes: readonly string[],
): Promise<ListedPartner[]> {
  await lockPublishes(trx, template.tenant_id, template.id);
  const release = await getRelease(trx, template, releaseId);
  if (release.status !== 'draft') {
    const message =
      release.status === 'published'
        ? 'A published version cannot be changed.'
        : `Only a draft can be changed: this version is ${statusWords[release.status]}.`;
    throw new AppError('conflict', { message });
  }
  const before = await partnersOfRelease(trx, template.tenant_id, release.id);
  const after = await setReleasePartners(trx, template.tenant_id, release.id, codes);
  const { added, removed } = partnerChanges(before, after);
  if (added.length > 0 || removed.length > 0) {
    await recordAudit(trx, {
      ...actor,
      action: 'version.partners_changed',
      target: `${template.code} ${release.tag}`,
      details: {
        version_id: release.id,
        added: added.map((p) => p.code),
        removed: removed.map((p) => p.code),
      },
    });
  }
  return after;
}
