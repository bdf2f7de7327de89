import type { SubjectVault } from '../subjects/index.js';

/**
 * A visitor's keyed look-up among the tenant's subjects. The `cookie-visitor/` prefix keeps
 * visitors apart from customers: a customer id cannot hold a `/`.
 */
export function visitorLookup(vault: SubjectVault, tenantId: string, visitorId: string): string {
  return vault.lookup(tenantId, `cookie-visitor/${visitorId}`);
}
