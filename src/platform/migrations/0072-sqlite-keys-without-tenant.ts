import { type Kysely, SqliteAdapter, sql } from 'kysely';

/**
 * On SQLite, what 0054, 0055 and 0056 did on PostgreSQL: the keys of the records that grow
 * without bound (`decisions`, `cookie_decisions`, `channel_changes`, `partner_block_changes`)
 * no longer lead with the tenant's text id, 37 bytes in every entry of each. Each table's key by
 * id becomes `(id)`; each other key that led with the tenant starts at the customer's subject
 * id, the website's id or the decision's id instead. Those ids are UUIDs the service makes and
 * never shares between tenants, so each key finds the same rows; every statement still names
 * the tenant, checked on the row. The keys by the tenant and a time (`decisions_decided_at_idx`),
 * how a tenant's records are read by time, keep it. The customer's key of decisions by time keeps
 * the decision's id, which SQLite reads a page of history by (0067).
 *
 * SQLite plans without statistics, from the number of a statement's terms each index matches:
 * with the tenant out of the customer's keys it would read a customer's decision as of a moment
 * from the tenant's key by time (bench/notebook.md, "the tenant out of the decisions' keys"). So
 * the migration writes SQLite's statistics for each table's indexes (`sqlite_stat1`): fixed
 * figures of the store's shape, not a count of its rows. A tenant or a website has many
 * records, a customer or a decision few, an id one. An `ANALYZE` would put counts in their
 * place and drop them for a table still empty: docs/scaling.md asks operators to leave them.
 *
 * SQLite cannot change a table's constraints in place: each table is made again from its own
 * definition (every column a later migration added included) with the new keys, its rows copied
 * in their order, the old one dropped, the new one renamed and its indexes made again, as 0050
 * does. Same names and columns, and the same rows under each key: the release before runs on
 * them (it names none of these keys in a statement). PostgreSQL: nothing to do.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  for (const table of tables) await remake(db, table);
  // Made by `ANALYZE` alone: of the schema's own table, which has no index, it counts nothing.
  await sql`analyze sqlite_schema`.execute(db);
  for (const { name, statistics } of tables) {
    await sql`delete from sqlite_stat1 where tbl = ${name}`.execute(db);
    for (const [index, stat] of Object.entries(statistics)) {
      await sql`insert into sqlite_stat1 (tbl, idx, stat) values (${name}, ${index}, ${stat})`.execute(
        db,
      );
    }
  }
  // The planner reads the statistics when it loads the schema: new connections do, this one now.
  await sql`analyze sqlite_schema`.execute(db);
}

export interface Remade {
  name: string;
  /** The clauses of the table's definition that change, as 0.18.0's definition has them. */
  keys: ReadonlyArray<readonly [string, string]>;
  /** Its indexes made anew, each as it now is. */
  indexes: Readonly<Record<string, string>>;
  /**
   * `sqlite_stat1`'s figures for each index: the rows the table is taken to hold (a million),
   * then how many share each leading run of the index's columns.
   */
  statistics: Readonly<Record<string, string>>;
}

/** The tables it makes again; the tests take the migration back by the same clauses. */
export const tables: readonly Remade[] = [
  {
    name: 'decisions',
    keys: [
      ['primary key ("tenant_id", "id")', 'primary key ("id")'],
      [
        'unique ("tenant_id", "subject_id", "template_id", "seq")',
        'unique ("subject_id", "template_id", "seq")',
      ],
    ],
    indexes: {
      decisions_customer_time_idx:
        'create index "decisions_customer_time_idx" on "decisions" ("subject_id", "decided_at", "id")',
    },
    statistics: {
      sqlite_autoindex_decisions_1: '1000000 1',
      sqlite_autoindex_decisions_2: '1000000 10 4 1',
      decisions_customer_time_idx: '1000000 10 1 1',
      decisions_decided_at_idx: '1000000 100000 1',
    },
  },
  {
    name: 'cookie_decisions',
    keys: [
      ['primary key ("tenant_id", "id")', 'primary key ("id")'],
      ['unique ("tenant_id", "system_id", "event_id")', 'unique ("system_id", "event_id")'],
    ],
    indexes: {
      cookie_decisions_subject_idx:
        'create index "cookie_decisions_subject_idx" on "cookie_decisions" ("subject_id")',
      cookie_decisions_customer:
        'create index "cookie_decisions_customer" on "cookie_decisions" ' +
        '("customer_subject_id", "decided_at") where "customer_subject_id" is not null',
    },
    statistics: {
      sqlite_autoindex_cookie_decisions_1: '1000000 1',
      sqlite_autoindex_cookie_decisions_2: '1000000 100000 1',
      cookie_decisions_subject_idx: '1000000 2',
      cookie_decisions_system_time_idx: '1000000 100000 1 1',
      cookie_decisions_customer: '100000 5 1',
    },
  },
  {
    name: 'channel_changes',
    keys: [['primary key ("tenant_id", "id")', 'primary key ("id")']],
    indexes: {
      channel_changes_subject_idx:
        'create index "channel_changes_subject_idx" on "channel_changes" ("subject_id", "changed_at")',
      channel_changes_channel_idx:
        'create index "channel_changes_channel_idx" on "channel_changes" ' +
        '("subject_id", "product_id", "channel", "changed_at")',
    },
    statistics: {
      sqlite_autoindex_channel_changes_1: '1000000 1',
      channel_changes_subject_idx: '1000000 10 1',
      channel_changes_channel_idx: '1000000 10 5 2 1',
    },
  },
  {
    name: 'partner_block_changes',
    keys: [['primary key ("tenant_id", "id")', 'primary key ("id")']],
    indexes: {
      partner_block_changes_subject_idx:
        'create index "partner_block_changes_subject_idx" on "partner_block_changes" ' +
        '("subject_id", "changed_at")',
      partner_block_changes_decision_idx:
        'create index "partner_block_changes_decision_idx" on "partner_block_changes" ' +
        '("decision_id", "partner_code", "changed_at")',
    },
    statistics: {
      sqlite_autoindex_partner_block_changes_1: '1000000 1',
      partner_block_changes_subject_idx: '1000000 10 1',
      partner_block_changes_decision_idx: '1000000 5 2 1',
    },
  },
];

/**
 * Makes a table again with its keys' clauses replaced in its definition, its rows copied in
 * their order, and its indexes made again, those named in `indexes` as they say; nothing where
 * no clause is found (the migration ran already).
 */
async function remake(db: Kysely<unknown>, { name, keys, indexes }: Remade): Promise<void> {
  const { rows } = await sql<{ type: string; name: string; sql: string }>`select type, name, sql
    from sqlite_master where tbl_name = ${name} and sql is not null`.execute(db);
  const definition = rows.find((row) => row.type === 'table')?.sql;
  if (definition === undefined) throw new Error(`table ${name} not found`);
  if (!keys.some(([before]) => definition.includes(before))) return;
  const copy = `${name}_without_tenant`;
  let made = definition.replace(
    /^create table (if not exists )?"?[a-z_]+"?/i,
    `create table "${copy}"`,
  );
  for (const [before, after] of keys) {
    if (!made.includes(before)) throw new Error(`cannot read the keys of ${name}`);
    made = made.replace(before, after);
  }
  await sql.raw(made).execute(db);
  await sql.raw(`insert into "${copy}" select * from "${name}" order by rowid`).execute(db);
  await sql.raw(`drop table "${name}"`).execute(db);
  await sql.raw(`alter table "${copy}" rename to "${name}"`).execute(db);
  for (const index of rows.filter((row) => row.type === 'index')) {
    await sql.raw(indexes[index.name] ?? index.sql).execute(db);
  }
}
