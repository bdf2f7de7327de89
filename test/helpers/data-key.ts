import { createHash, randomBytes } from 'node:crypto';
import type { Executor } from '../../src/platform/db.js';
import { findSubjectId, personalReader } from '../../src/subjects/service.js';
import { createVault } from '../../src/subjects/vault.js';
import { sealedAsBase64 } from './sealed.js';

/**
 * The data key of every server and command the end-to-end tests start (`serverEnv` gives it to
 * them). All the processes on one store must hold the same key, and without it each would make
 * its own key file (for PostgreSQL under its working directory, which differs between `serve`
 * and the command line). Known here, so that a test can read what the store keeps sealed.
 */
export const e2eDataKey = randomBytes(32);

/**
 * The data key of every in-process test app (`startTestApp`), and of the run's migrated template
 * stores they are copies of (`global-setup.ts`): a store's key is sealed into it by its
 * migrations, so the copies and the apps on them share one, fixed for the run.
 */
export const testDataKey = createHash('sha256').update('consent.test data key').digest();

export const e2eVault = createVault(e2eDataKey);

async function tenantIdOf(db: Executor, alias: string): Promise<string> {
  const tenant = await db
    .selectFrom('tenants')
    .select('id')
    .where('alias', '=', alias)
    .executeTakeFirstOrThrow();
  return tenant.id;
}

/**
 * The random id the store knows each of the customers by, found by their look-up as the service
 * finds them; customers without a record (or erased) have none.
 */
export async function subjectIdsOf(
  db: Executor,
  tenantAlias: string,
  customers: Iterable<string>,
): Promise<Map<string, string>> {
  const tenantId = await tenantIdOf(db, tenantAlias);
  const found = await Promise.all(
    [...new Set(customers)].map(
      async (customer) =>
        [customer, await findSubjectId(db, e2eVault, tenantId, customer)] as const,
    ),
  );
  const subjects = new Map<string, string>();
  for (const [customer, subjectId] of found) if (subjectId) subjects.set(customer, subjectId);
  return subjects;
}

/**
 * The customer id sealed in each of the tenant's decisions, by decision id; a decision whose
 * sealed fields do not open (or were erased) maps to its state instead (`erased`, `unreadable`).
 */
export async function sealedCustomersOf(
  db: Executor,
  tenantAlias: string,
  decisions: ReadonlyArray<{ id: string; subject_id: string; personal: string }>,
): Promise<Map<string, string>> {
  const open = personalReader(db, e2eVault, await tenantIdOf(db, tenantAlias));
  // As the service reads them: base64, whichever the columns' type.
  const opened = await open(await sealedAsBase64(db, [...decisions]));
  return new Map(
    decisions.map((d, i) => {
      const record = opened[i];
      return [d.id, record?.state === 'open' ? record.personal.customer_id : `(${record?.state})`];
    }),
  );
}
