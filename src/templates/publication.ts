import { partnersOfRelease } from '../partners/index.js';
import type { Trx } from '../platform/db.js';
import { logPublication } from '../publications/index.js';
import { findContentFiles } from './file-repository.js';
import type { TemplateVersionRow } from './table.js';

/**
 * A release's publication in the tenant's log, in the transaction that publishes it: every
 * locale's text (its `consent_version_id`, the SHA-256 a decision on it commits to, its uploaded
 * file's), the partners it lists, when it was published and when it goes live.
 */
export async function logReleasePublication(
  trx: Trx,
  release: TemplateVersionRow & { version: number; published_at: string },
  variants: readonly TemplateVersionRow[],
  publishedAt: string,
): Promise<void> {
  const { tenant_id: tenantId } = release;
  const ids = variants.map((v) => v.id);
  const [files, partners] = await Promise.all([
    findContentFiles(trx, tenantId, ids),
    partnersOfRelease(trx, tenantId, release.id),
  ]);
  const fileOf = new Map(files.map((f) => [f.version_id, f.sha256]));
  await logPublication(trx, tenantId, {
    what: 'template',
    of: release.template_id,
    version: release.version,
    publishedAt,
    effectiveAt: release.published_at,
    texts: variants.map((v) => ({
      locale: v.locale,
      id: v.id,
      sha256: v.content_sha256,
      file: fileOf.get(v.id) ?? null,
    })),
    partners: partners.map((p) => p.code),
  });
}
