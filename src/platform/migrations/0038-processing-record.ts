import type { Kysely } from 'kysely';

/**
 * What a tenant fills in of its section 39 record (docs/pdpa.md, "Sections 28, 29 and 39"): the
 * controller, the data protection officer and the security measures; the rest of the record is
 * generated from what the service keeps. One row per tenant. Adds a table only: the release
 * before runs on.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('processing_record_fields')
    .addColumn('tenant_id', 'text', (c) => c.primaryKey())
    .addColumn('controller_name', 'text', (c) => c.notNull())
    .addColumn('controller_address', 'text', (c) => c.notNull())
    .addColumn('controller_contact', 'text', (c) => c.notNull())
    .addColumn('dpo_name', 'text', (c) => c.notNull())
    .addColumn('dpo_contact', 'text', (c) => c.notNull())
    .addColumn('security_measures', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}
