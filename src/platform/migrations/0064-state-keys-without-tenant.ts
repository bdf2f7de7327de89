import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * On PostgreSQL, the keys of a customer's states no longer carry the tenant's id: the state on
 * a version (`customer_version_states_pk`, now `(subject_id, consent_version_id)`, still with
 * the decision and its time included for `pending`) and on a template
 * (`customer_template_states_pk`, now `(subject_id, template_id)`). A subject's id is a UUID
 * the service makes and never shares between tenants, so each key finds the same rows without
 * the tenant, as the decisions' keys do since 0054; every statement still names the tenant, and
 * checks it on the row, but `pending`'s, answered from the key alone, which finds the subject by
 * the tenant's look-up (`StateKey`, src/platform/id-type.ts). 16 bytes less a state in each key
 * (a customer has a state a template and a version they decided on).
 *
 * The back-office's counts of a template's customers read a tenant's states whole; without the
 * tenant in the key they read the table instead of the key's range, the same rows for a store of
 * one tenant.
 *
 * 0.12.0 runs on either form (its upserts name the keys by their names, and it reads the key's
 * form when it starts); 0.11.0's upserts name the tenant's columns, which no key matches after
 * it (`oldestRelease`). The new keys are built first under other names (writes to the two
 * tables wait for the builds, reads go on), then swapped in under the old names at once, as 0054
 * does. Run again, it leaves a key that no longer leads with the tenant as it is.
 */
export const oldestRelease = '0.12.0';

const keys = [
  {
    table: 'customer_version_states',
    columns: sql`(subject_id, consent_version_id) include (last_decision, last_decided_at)`,
  },
  { table: 'customer_template_states', columns: sql`(subject_id, template_id)` },
];

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  for (const { table, columns } of keys) {
    const key = `${table}_pk`;
    const { rows } = await sql<{ first: string }>`select a.attname as first
      from pg_index as i
      join pg_attribute as a on a.attrelid = i.indrelid and a.attnum = i.indkey[0]
      where i.indexrelid = to_regclass(${key})`.execute(db);
    if (rows[0]?.first !== 'tenant_id') continue;
    await sql`create unique index ${sql.id(`${key}_new`)} on ${sql.table(table)} ${columns}`.execute(
      db,
    );
    await sql`alter table ${sql.table(table)} drop constraint ${sql.id(key)},
      add constraint ${sql.id(key)} primary key using index ${sql.id(`${key}_new`)}`.execute(db);
  }
}
