import type { Kysely } from 'kysely';

/**
 * A template may set how long a customer's consent stays valid, in calendar months: past it,
 * `pending` asks the customer again. `templates.validity_months` is the setting now (null: no
 * limit), read with the published version on the hot path. `template_validity_changes` keeps
 * every setting from the moment it was made, so that `as-of` answers under the setting in force
 * at the moment asked about, not today's. Existing templates get no limit and no row: they
 * answer as before.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('templates').addColumn('validity_months', 'integer').execute();
  await db.schema
    .createTable('template_validity_changes')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('template_id', 'text', (c) => c.notNull())
    .addColumn('changed_at', 'text', (c) => c.notNull())
    .addColumn('validity_months', 'integer')
    // Two changes in one millisecond: the later one is the setting from that moment.
    .addPrimaryKeyConstraint('template_validity_changes_pk', [
      'tenant_id',
      'template_id',
      'changed_at',
    ])
    .execute();
}
