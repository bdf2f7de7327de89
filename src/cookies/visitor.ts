import {
  type Eraser,
  erasableVisitorChoices,
  eraseVisitor,
  type VisitorErasureResult,
} from '../erasure/index.js';
import type { Db, Executor } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { uuidPattern } from '../platform/ids.js';
import type { SubjectVault } from '../subjects/index.js';

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
  return erasableVisitorChoices(db, tenantId, lookupOf(vault, tenantId, visitorId));
}

/**
 * Erases a website visitor by the id their browser kept (`Consentrix.consent().visitor_id`):
 * see `eraseVisitor` (src/erasure). `400 1001` for an id that is no UUID.
 */
export async function eraseCookieVisitor(
  db: Db,
  vault: SubjectVault,
  tenantId: string,
  visitorId: string,
  by: Eraser,
): Promise<VisitorErasureResult> {
  return eraseVisitor(db, tenantId, lookupOf(vault, tenantId, visitorId), by);
}
