import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * On PostgreSQL, the keys of the control kinds' states no longer carry the tenant's id, as the
 * customers' states' since 0064: a channel's state (`channel_states_pk`, now `(subject_id,
 * product_id, channel)`) and a partner's block on a decision (`partner_block_states_pk`, now
 * `(decision_id, partner_code)`, and its index by subject, `partner_block_states_subject_idx`,
 * now `(subject_id)`). A subject's id and a decision's are UUIDs the service makes and never
 * shares between tenants, so each key finds the same rows without the tenant; every statement
 * still names the tenant, which is checked on the row (each of them reads the row's state).
 * 16 bytes less a state in each key.
 *
 * 0.13.0 runs on either form (its upserts name the keys by their names); 0.12.0's upserts name
 * the tenant's columns, which no key matches after it (`oldestRelease`). The new keys are built
 * first under other names (writes to the two tables wait for the builds, reads go on), then
 * swapped in under the old names at once, as 0064 does. Run again, it leaves a key that no
 * longer leads with the tenant as it is.
 */
export const oldestRelease = '0.13.0';

const keys = [
  { table: 'channel_states', columns: sql`(subject_id, product_id, channel)` },
  { table: 'partner_block_states', columns: sql`(decision_id, partner_code)` },
];

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  for (const { table, columns } of keys) {
    const key = `${table}_pk`;
    if ((await firstColumn(db, key)) !== 'tenant_id') continue;
    await sql`create unique index ${sql.id(`${key}_new`)} on ${sql.table(table)} ${columns}`.execute(
      db,
    );
    await sql`alter table ${sql.table(table)} drop constraint ${sql.id(key)},
      add constraint ${sql.id(key)} primary key using index ${sql.id(`${key}_new`)}`.execute(db);
  }
  if ((await firstColumn(db, 'partner_block_states_subject_idx')) === 'tenant_id') {
    await sql`create index partner_block_states_subject_new
      on partner_block_states (subject_id)`.execute(db);
    await sql`drop index partner_block_states_subject_idx`.execute(db);
    await sql`alter index partner_block_states_subject_new
      rename to partner_block_states_subject_idx`.execute(db);
  }
}

/** The first column of an index, by the index's name. */
async function firstColumn(db: Kysely<unknown>, index: string): Promise<string | undefined> {
  const { rows } = await sql<{ first: string }>`select a.attname as first
    from pg_index as i
    join pg_attribute as a on a.attrelid = i.indrelid and a.attnum = i.indkey[0]
    where i.indexrelid = to_regclass(${index})`.execute(db);
  return rows[0]?.first;
}
