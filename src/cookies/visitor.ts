import { recordAudit } from '../audit-trail/index.js';
import { type Eraser, eraseSubject } from '../erasure/index.js';
import type { Db, Executor } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { uuidPattern } from '../platform/ids.js';
import type { Registry } from '../record-kinds/index.js';
import type { SubjectVault } from '../subjects/index.js';
import { findLiveSubjectRow } from '../subjects/index.js';
import { countSubjectCookieDecisions } from './decisions-repository.js';

/** What erasing a website visitor did. */
export interface VisitorErasureResult {
  /** False when the tenant holds no choice of this visitor (nothing was left to erase). */
  erased: boolean;
  subject_id: string | null;
  cookie_decisions: number;
  erased_at: string | null;
}

/**
 * A visitor's keyed look-up among the tenant's subjects. The `cookie-visitor/` prefix keeps
 * visitors apart from customers: a customer id cannot hold a `/`.
 */
export function visitorLookup(vault: SubjectVault, tenantId: string, visitorId: string): string {
  return vault.lookup(tenantId, `cookie-visitor/${visitorId}`);
}

const visitorIdShape = new RegExp(uuidPattern);

/** The look-up of a visitor id as typed: `400 1001` for one that is no UUID. */
function lookupOf(vault: SubjectVault, tenantId: string, visitorId: string): string {
  if (!visitorIdShape.test(visitorId)) {
    throw new AppError('invalidRequest', {
      details: [{ field: 'visitor', issue: 'must be the UUID the banner keeps' }],
    });
  }
  // The banner's id is recorded in lower case (public.ts), whatever case it is typed in.
  return visitorLookup(vault, tenantId, visitorId.toLowerCase());
}

/**
 * The subject of a visitor of the tenant, by the id their browser kept; undefined for an id
 * never seen and for one erased alike. `400 1001` for an id that is no UUID.
 */
export async function findVisitorSubjectId(
  db: Executor,
  vault: SubjectVault,
  tenantId: string,
  visitorId: string,
): Promise<string | undefined> {
  return (await findLiveSubjectRow(db, tenantId, lookupOf(vault, tenantId, visitorId)))?.id;
}

/**
 * How many choices the tenant keeps of a visitor, by the id their browser kept: what erasing
 * them would reach. 0 for an id never seen and for one already erased alike, since an erasure
 * keeps no link to the id. `400 1001` for an id that is no UUID.
 */
export async function countVisitorChoices(
  db: Executor,
  vault: SubjectVault,
  tenantId: string,
  visitorId: string,
): Promise<number> {
  const subjectId = await findVisitorSubjectId(db, vault, tenantId, visitorId);
  return subjectId ? countSubjectCookieDecisions(db, tenantId, subjectId) : 0;
}

/**
 * Erases a website visitor by the id their browser kept (`Consentrix.consent().visitor_id`), by
 * crypto-shredding, as a customer is (`eraseSubject`): their key, salt and look-up go, so the
 * visitor id, address and user agent sealed in their choices, and in the webhook events not yet
 * sent, can never be opened again. The choices stay, in the store and the decision log, as the
 * proof that they were made. A visitor holds no receipt (their page keeps only its id), so no
 * tombstone is written and no `customer.erased` event is sent; the audit log records the erasure
 * under the subject's random id. `400 1001` for an id that is no UUID.
 */
export async function eraseCookieVisitor(
  db: Db,
  vault: SubjectVault,
  registry: Registry,
  tenantId: string,
  visitorId: string,
  by: Eraser,
): Promise<VisitorErasureResult> {
  const lookup = lookupOf(vault, tenantId, visitorId);
  const result = await eraseSubject(db, vault, registry, tenantId, lookup, async (erased) => {
    const choices = await countSubjectCookieDecisions(erased.trx, tenantId, erased.id);
    await recordAudit(erased.trx, {
      ...by,
      tenantId,
      action: 'cookie_visitor.erased',
      target: erased.id,
      details: { cookie_decisions: choices },
    });
    return {
      erased: true,
      subject_id: erased.id,
      cookie_decisions: choices,
      erased_at: erased.erasedAt,
    };
  });
  return result ?? { erased: false, subject_id: null, cookie_decisions: 0, erased_at: null };
}
