import { type Eraser, eraseVisitor, type VisitorErasureResult } from '../erasure/index.js';
import type { Db } from '../platform/db.js';
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
  if (!visitorIdShape.test(visitorId)) {
    throw new AppError('invalidRequest', {
      details: [{ field: 'visitor', issue: 'must be the UUID the banner keeps' }],
    });
  }
  return eraseVisitor(db, tenantId, visitorLookup(vault, tenantId, visitorId.toLowerCase()), by);
}
