import type { Kysely } from 'kysely';

/**
 * The first act of a co-consent, held until the second comes (PDPA section 20; docs/pdpa.md):
 * a subject's `given` on a version whose template asks for a representative's co-consent too, or
 * the representative's before the subject's. One per customer (by their keyed look-up), version
 * and side; the act sealed under the data key; gone when the decision is recorded, the customer
 * decides otherwise or is erased, or it expires. Adds a table only: the release before runs on.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('held_consent_acts')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('lookup', 'text', (c) => c.notNull())
    .addColumn('consent_version_id', 'text', (c) => c.notNull())
    .addColumn('side', 'text', (c) => c.notNull())
    .addColumn('act', 'text', (c) => c.notNull())
    .addColumn('held_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('held_consent_acts_pk', [
      'tenant_id',
      'lookup',
      'consent_version_id',
      'side',
    ])
    .execute();
}
