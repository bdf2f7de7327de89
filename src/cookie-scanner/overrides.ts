/**
 * A tenant's own classification of cookies and hosts (docs/cookie-scans.md, "Classification"):
 * what the tenant knows of its own trackers wins over the Open Cookie Database and the host list
 * in every later scan of any of its systems.
 */
import { type Actor, recordAudit } from '../audit-trail/index.js';
import { categoryKeyPattern } from '../cookies/index.js';
import type { Db } from '../platform/db.js';
import { AppError, type ErrorDetail } from '../platform/errors.js';
import { nowIso } from '../platform/time.js';
import type { Override } from './classify.js';
import { deleteOverride, listOverrideRows, putOverride } from './overrides-repository.js';

/** An override as it is set and listed. */
export interface OverrideInput {
  /** A cookie's name, or a prefix ending in `*` (`_ga_*`). */
  cookie?: string | undefined;
  /** A host, which covers its subdomains (`google-analytics.com`). */
  host?: string | undefined;
  /** `necessary`, a standard category or one of the tenant's own keys. */
  category?: string | undefined;
  provider?: string | undefined;
  purpose?: string | undefined;
  retention?: string | undefined;
}

export interface OverrideView extends Override {
  updated_at: string;
}

const cookiePattern = /^[A-Za-z0-9_.-]{1,200}\*?$/;
const hostPattern = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const category = new RegExp(categoryKeyPattern);

/** Which cookie or host the input names: exactly one of the two, well formed. */
function target(input: OverrideInput, details: ErrorDetail[]) {
  const { cookie, host } = input;
  if ((cookie === undefined) === (host === undefined)) {
    details.push({ field: 'cookie', issue: 'name a cookie or a host: one of the two' });
    return undefined;
  }
  if (cookie !== undefined) {
    if (!cookiePattern.test(cookie)) {
      details.push({ field: 'cookie', issue: 'must be a cookie name, or a prefix ending in *' });
    }
    return { kind: 'cookie' as const, pattern: cookie };
  }
  const bare = String(host)
    .toLowerCase()
    .replace(/^\*?\./, '');
  if (!hostPattern.test(bare)) details.push({ field: 'host', issue: 'must be a host name' });
  return { kind: 'host' as const, pattern: bare };
}

function text(value: string | undefined, field: string, max: number, details: ErrorDetail[]) {
  if (value === undefined || value.trim() === '') return null;
  if (value.length > max) details.push({ field, issue: `must be at most ${max} characters` });
  return value.trim();
}

/** The tenant's overrides, cookies first, each by its name or host. */
export async function listOverrides(db: Db, tenantId: string): Promise<OverrideView[]> {
  return (await listOverrideRows(db, tenantId)).map((row) => ({
    kind: row.kind,
    pattern: row.pattern,
    category: row.category,
    provider: row.provider,
    purpose: row.purpose,
    retention: row.retention,
    updated_at: row.updated_at,
  }));
}

/**
 * Sets the tenant's classification of a cookie or host (audited `cookie_override.set`), in place
 * of one set before. `400 1001` naming the field for a target that is none, both or malformed, or
 * a category that is no key.
 */
export async function setOverride(
  db: Db,
  actor: Actor,
  tenantId: string,
  input: OverrideInput,
): Promise<OverrideView> {
  const details: ErrorDetail[] = [];
  const named = target(input, details);
  if (!input.category || !category.test(input.category)) {
    details.push({
      field: 'category',
      issue: 'must be necessary, a standard category or one of your own keys',
    });
  }
  const provider = text(input.provider, 'provider', 100, details);
  const purpose = text(input.purpose, 'purpose', 500, details);
  const retention = text(input.retention, 'retention', 100, details);
  if (!named || details.length > 0) throw new AppError('invalidRequest', { details });
  const row = {
    tenant_id: tenantId,
    ...named,
    category: input.category as string,
    provider,
    purpose,
    retention,
    updated_at: nowIso(),
  };
  await db.transaction().execute(async (trx) => {
    await putOverride(trx, row);
    await recordAudit(trx, {
      ...actor,
      tenantId,
      action: 'cookie_override.set',
      target: `${row.kind}:${row.pattern}`,
      details: { category: row.category, provider, purpose, retention },
    });
  });
  const { tenant_id: _tenant, ...view } = row;
  return view;
}

/** Removes the tenant's override of a cookie or host (audited); `404 1004` when there is none. */
export async function removeOverride(
  db: Db,
  actor: Actor,
  tenantId: string,
  input: Pick<OverrideInput, 'cookie' | 'host'>,
): Promise<{ removed: { kind: 'cookie' | 'host'; pattern: string } }> {
  const details: ErrorDetail[] = [];
  const named = target(input, details);
  if (!named || details.length > 0) throw new AppError('invalidRequest', { details });
  await db.transaction().execute(async (trx) => {
    if (!(await deleteOverride(trx, tenantId, named.kind, named.pattern))) {
      throw new AppError('notFound', { message: 'There is no override of that cookie or host.' });
    }
    await recordAudit(trx, {
      ...actor,
      tenantId,
      action: 'cookie_override.removed',
      target: `${named.kind}:${named.pattern}`,
      details: {},
    });
  });
  return { removed: named };
}
