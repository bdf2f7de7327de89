import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * On PostgreSQL, the keys of the control changes (a customer's channel blocked or unblocked, a
 * partner blocked from a decision) no longer carry the tenant's id, as 0054 and 0055 did for
 * decisions, cookie choices and subjects: each table's key by id becomes `(id)`, and each index
 * that led with the tenant starts at the customer's subject id or the decision's id instead. A
 * change's id, a subject's id, a decision's id and a product's id are UUIDs the service makes and
 * never shares between tenants, so each key finds the same rows without the tenant; every query
 * still names the tenant, which is checked on the row the key leads to. The tenant's text id took
 * 37 bytes, 40 with alignment, in each of the three indexes of every change.
 *
 * The states (`channel_states`, `partner_block_states`) keep their keys: a change's upsert of its
 * state names them as its conflict. SQLite keeps its keys, as for 0054.
 *
 * Same names, same rows, same uniqueness: the release before runs on (it names none of these
 * keys in a statement). The new indexes are built first under other names (writes to the tables
 * wait for the builds, reads go on), then swapped in at once. A table partitioned by time
 * (`store partition`) keeps the time in its primary key, made again at the swap.
 */
const tables = [
  {
    table: 'channel_changes',
    indexes: [
      { name: 'channel_changes_subject_idx', columns: ['subject_id', 'changed_at'] },
      {
        name: 'channel_changes_channel_idx',
        columns: ['subject_id', 'product_id', 'channel', 'changed_at'],
      },
    ],
  },
  {
    table: 'partner_block_changes',
    indexes: [
      { name: 'partner_block_changes_subject_idx', columns: ['subject_id', 'changed_at'] },
      {
        name: 'partner_block_changes_decision_idx',
        columns: ['decision_id', 'partner_code', 'changed_at'],
      },
    ],
  },
];

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  const partitioned = new Set<string>();
  // Built first, under names of their own: the old keys answer reads meanwhile. A partitioned
  // table's key cannot be given an index made beforehand.
  for (const { table, indexes } of tables) {
    const { rows } = await sql<{ partitioned: boolean }>`select relkind = 'p' as partitioned
      from pg_class where oid = to_regclass(${table})`.execute(db);
    if (rows[0]?.partitioned === true) partitioned.add(table);
    else
      await sql`create unique index ${sql.id(`${table}_pk_new`)} on ${sql.table(table)} (id)`.execute(
        db,
      );
    for (const index of indexes) {
      await sql`create index ${sql.id(`${index.name}_new`)} on ${sql.table(table)}
        (${sql.join(index.columns.map((column) => sql.id(column)))})`.execute(db);
    }
  }
  // Then swapped in, to the transaction's end.
  for (const { table, indexes } of tables) {
    const pk = sql.id(`${table}_pk`);
    await (partitioned.has(table)
      ? sql`alter table ${sql.table(table)} drop constraint ${pk},
          add constraint ${pk} primary key (id, changed_at)`
      : sql`alter table ${sql.table(table)} drop constraint ${pk},
          add constraint ${pk} primary key using index ${sql.id(`${table}_pk_new`)}`
    ).execute(db);
    for (const index of indexes) {
      await sql`drop index ${sql.id(index.name)}`.execute(db);
      await sql`alter index ${sql.id(`${index.name}_new`)} rename to ${sql.id(index.name)}`.execute(
        db,
      );
    }
  }
}
