/**
 * The last scan's cookies written into a draft's declaration (docs/cookie-scans.md, "From a scan
 * to the declaration"): each cookie the scan found under a category of the draft, with who sets
 * it, for how long and what for as the classification said, for the owner to edit and review
 * with the rest of the draft.
 */
import {
  type ConfigurationContent,
  changeConfiguration,
  type Editor,
  getConfiguration,
  getSystem,
} from '../cookies/index.js';
import type { Db } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import type { ScanFindings } from './findings.js';
import { lastDoneScan } from './repository.js';

/** What a declaration may hold: a name, and at most 30 cookies a category. */
const namePattern = /^[A-Za-z0-9_.-]{1,200}$/;
const domainPattern = /^\.?[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/;
const perCategory = 30;

type Cookie = NonNullable<ConfigurationContent['categories'][number]['cookies']>[number];

function listed(cookies: readonly Cookie[], name: string): boolean {
  return cookies.some((c) =>
    c.name.endsWith('*') ? name.startsWith(c.name.slice(0, -1)) : c.name === name,
  );
}

/**
 * Adds to a draft's categories the cookies its system's newest finished scan found under them
 * that they do not list yet (by name or a prefix they list), in the order found: `added` says how
 * many. `404 1004` when the system has no finished scan; `409 1005` for a configuration that is
 * not a draft. A cookie of a category the draft has not, or unclassified, is left out.
 */
export async function declareScannedCookies(
  db: Db,
  tenantId: string,
  configurationId: string,
  by: Editor,
): Promise<{ added: number }> {
  const configuration = await getConfiguration(db, tenantId, configurationId);
  const system = await getSystem(db, tenantId, configuration.system);
  const scan = await lastDoneScan(db, tenantId, system.id);
  if (!scan?.result) {
    throw new AppError('notFound', { message: 'This system has no finished scan yet.' });
  }
  const findings = JSON.parse(scan.result) as ScanFindings;
  const content = structuredClone(configuration.content);
  let added = 0;
  for (const found of findings.cookies) {
    const category = content.categories.find((c) => c.key === found.category);
    const domain = found.domain.toLowerCase();
    if (!category || !namePattern.test(found.name) || !domainPattern.test(domain)) continue;
    const cookies = category.cookies ?? [];
    if (listed(cookies, found.name) || cookies.length >= perCategory) continue;
    cookies.push({
      name: found.name,
      // A cookie set for a parent domain is removed there; one of the page's own host is
      // removed from the page's host, as the banner does without a domain.
      ...(domain.startsWith('.') ? { domain } : {}),
      ...(found.path && found.path !== '/' ? { path: found.path } : {}),
      ...(found.provider ? { provider: found.provider.slice(0, 100) } : {}),
      ...(found.retention ? { retention: found.retention.slice(0, 100) } : {}),
      ...(found.purpose
        ? { purpose: { [content.default_locale]: found.purpose.slice(0, 500) } }
        : {}),
    });
    category.cookies = cookies;
    added += 1;
  }
  if (added > 0) {
    await db
      .transaction()
      .execute((trx) => changeConfiguration(trx, tenantId, configurationId, { content }, by));
  } else if (configuration.status !== 'draft') {
    throw new AppError('conflict', { message: 'Only a draft configuration can be changed.' });
  }
  return { added };
}
