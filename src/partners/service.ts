import { type Actor, recordAudit } from '../audit-trail/index.js';
import type { Executor, Trx } from '../platform/db.js';
import { AppError, type ErrorDetail } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/time.js';
import { validate } from '../platform/validation.js';
import {
  countReleasesListing,
  deletePartnerRow,
  deleteReleasePartners,
  findPartnerByCode,
  findReleasePartners,
  insertPartner,
  listPartnerRows,
  type PartnerSummaryRow,
  partnerIsListed,
  replaceReleasePartners,
  updatePartner,
} from './repository.js';
import { checkCountry, checkPolicyUrl } from './rules.js';
import { NewPartner, PartnerChanges } from './schemas.js';
import type { PartnerRow } from './table.js';

export type { PartnerSummaryRow };

/** A partner as a release lists it, and as `latest` and `pending` answer it. */
export interface ListedPartner {
  code: string;
  name: string;
}

/** The tenant's partners, by code, each with the number of releases that list it. */
export function listPartners(db: Executor, tenantId: string): Promise<PartnerSummaryRow[]> {
  return listPartnerRows(db, tenantId);
}

/** A partner by code; `404 1004` when the tenant has none of that code. */
export async function getPartner(
  db: Executor,
  tenantId: string,
  code: string,
): Promise<PartnerRow> {
  const partner = await findPartnerByCode(db, tenantId, code);
  if (!partner) throw new AppError('notFound', { message: 'No such partner.' });
  return partner;
}

/** A partner by code with the number of releases that list it; `404 1004` when none. */
export async function getPartnerSummary(
  db: Executor,
  tenantId: string,
  code: string,
): Promise<PartnerSummaryRow> {
  const partner = await getPartner(db, tenantId, code);
  return { ...partner, release_count: await countReleasesListing(db, tenantId, code) };
}

/** Creates a partner, and records who did; `400 1001` on bad input, `409 1005` when the code is taken. */
export async function createPartner(
  trx: Trx,
  actor: Actor,
  tenantId: string,
  input: unknown,
): Promise<PartnerRow> {
  const fields = validate(NewPartner, input);
  const checked = checkOptional(fields);
  const now = nowIso();
  const row: PartnerRow = {
    tenant_id: tenantId,
    id: newId(),
    code: fields.code,
    name: fields.name,
    purpose: fields.purpose ?? '',
    ...checked,
    created_at: now,
    updated_at: now,
  };
  if (!(await insertPartner(trx, row))) {
    throw new AppError('conflict', {
      message: `A partner with code "${fields.code}" already exists.`,
    });
  }
  await recordAudit(trx, {
    ...actor,
    action: 'partner.created',
    target: row.code,
    details: { name: row.name },
  });
  return row;
}

/** Changes a partner's name, purpose, country or policy link (its code stays), and records who did. */
export async function changePartner(
  trx: Trx,
  actor: Actor,
  tenantId: string,
  code: string,
  input: unknown,
): Promise<PartnerRow> {
  const partner = await getPartner(trx, tenantId, code);
  const fields = validate(PartnerChanges, input);
  const changes = {
    name: fields.name,
    purpose: fields.purpose ?? '',
    ...checkOptional(fields),
    updated_at: nowIso(),
  };
  await updatePartner(trx, tenantId, partner.id, changes);
  const changed = (['name', 'purpose', 'country', 'policy_url'] as const).filter(
    (k) => partner[k] !== changes[k],
  );
  await recordAudit(trx, {
    ...actor,
    action: 'partner.changed',
    target: partner.code,
    details: Object.fromEntries(changed.map((k) => [k, { from: partner[k], to: changes[k] }])),
  });
  return { ...partner, ...changes };
}

/**
 * Deletes a partner no release lists, and records who did; `409 1005` when one does, since a
 * version's partners are part of what its customers agreed to.
 */
export async function deletePartner(
  trx: Trx,
  actor: Actor,
  tenantId: string,
  code: string,
): Promise<void> {
  const partner = await getPartner(trx, tenantId, code);
  if (await partnerIsListed(trx, tenantId, code)) {
    throw new AppError('conflict', {
      message: `Partner "${code}" is listed by a version of a template, so it cannot be deleted.`,
    });
  }
  await deletePartnerRow(trx, tenantId, partner.id);
  await recordAudit(trx, {
    ...actor,
    action: 'partner.deleted',
    target: partner.code,
    details: { name: partner.name },
  });
}

/** The partners each of these releases lists, by code; a release listing none is absent. */
export async function partnersOfReleases(
  db: Executor,
  tenantId: string,
  releaseIds: readonly string[],
): Promise<Map<string, ListedPartner[]>> {
  const rows = await findReleasePartners(db, tenantId, releaseIds);
  const byRelease = new Map<string, ListedPartner[]>();
  for (const { release_id, code, name } of rows) {
    const list = byRelease.get(release_id) ?? [];
    list.push({ code, name });
    byRelease.set(release_id, list);
  }
  return byRelease;
}

/** The partners a release lists, by code (none: an empty list). */
export async function partnersOfRelease(
  db: Executor,
  tenantId: string,
  releaseId: string,
): Promise<ListedPartner[]> {
  return (await partnersOfReleases(db, tenantId, [releaseId])).get(releaseId) ?? [];
}

/**
 * Sets the partners a release lists (its caller checks that it is still a draft), and answers
 * them by code; `400 1001` naming `partners` when a code is none of the tenant's partners.
 */
export async function setReleasePartners(
  trx: Trx,
  tenantId: string,
  releaseId: string,
  codes: readonly string[],
): Promise<ListedPartner[]> {
  const wanted = [...new Set(codes)].sort();
  const listed: ListedPartner[] = [];
  const unknown: string[] = [];
  for (const code of wanted) {
    const partner = await findPartnerByCode(trx, tenantId, code);
    if (partner) listed.push({ code: partner.code, name: partner.name });
    else unknown.push(code);
  }
  if (unknown.length > 0) {
    throw new AppError('invalidRequest', {
      details: [
        {
          field: 'partners',
          issue: `names no partner of this tenant: ${unknown.map((c) => `"${c}"`).join(', ')}`,
        },
      ],
    });
  }
  await replaceReleasePartners(trx, tenantId, releaseId, wanted, nowIso());
  return listed;
}

/**
 * Forgets the lists of releases that are deleted (a template never published goes with its
 * drafts): nothing names them any more, and their partners may be deleted.
 */
export function forgetReleasePartners(
  trx: Trx,
  tenantId: string,
  releaseIds: readonly string[],
): Promise<void> {
  return deleteReleasePartners(trx, tenantId, releaseIds);
}

/** The country and policy link as stored, or `400 1001` naming each one that is wrong. */
function checkOptional(fields: { country?: string | undefined; policy_url?: string | undefined }): {
  country: string | null;
  policy_url: string | null;
} {
  const issues: ErrorDetail[] = [];
  const country = fields.country === undefined ? null : checkCountry(fields.country);
  const policy = fields.policy_url === undefined ? null : checkPolicyUrl(fields.policy_url);
  if (country && !('value' in country)) issues.push(country);
  if (policy && !('value' in policy)) issues.push(policy);
  if (issues.length > 0) throw new AppError('invalidRequest', { details: issues });
  return {
    country: country && 'value' in country ? country.value : null,
    policy_url: policy && 'value' in policy ? policy.value : null,
  };
}
