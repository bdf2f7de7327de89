import { Migrator, type RawBuilder, sql } from 'kysely';
import { expect } from 'vitest';
import { loadConfig } from '../../src/platform/config.js';
import { createDb, type Db, isPostgres } from '../../src/platform/db.js';
import {
  forgetIdType,
  knownTypes,
  resolveIdType,
  subjectLookup,
} from '../../src/platform/id-type.js';
import { forgetLogKey, resolveLogKey } from '../../src/platform/log-key.js';
import { migrateToLatest, migrations, serviceMigrator } from '../../src/platform/migrate.js';
import * as sqliteKeys from '../../src/platform/migrations/0072-sqlite-keys-without-tenant.js';
import * as sqliteStates from '../../src/platform/migrations/0073-sqlite-states-without-tenant.js';
import { sqliteIdText } from '../../src/platform/sqlite-ids.js';
import { testDataKey } from './app.js';
import type { TestStore } from './stores.js';
import { postgresStore, sqliteStore } from './stores.js';

/**
 * Brings a store to the schema an earlier release left: every migration named before `first`
 * (`'0050'` for a store of the release before migration 0050), as `migrateToLatest` would have
 * run them then. The test then writes rows as that release did and migrates the rest.
 */
export async function migrateBefore(db: Db, first: string, dataKey = testDataKey): Promise<void> {
  const before = Object.fromEntries(
    Object.entries(migrations(dataKey)).filter(([name]) => name < first),
  );
  const migrator = new Migrator({ db, provider: { getMigrations: async () => before } });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error;
}

/**
 * Takes migrations 0059 and 0060 back off a store: its decisions' `content_sha256` required
 * again and filled with their versions' hashes, as 0.7.0 wrote every decision's (and its cookie
 * choices', `asBefore0060`); both pending.
 */
export async function asBefore0059(db: Db): Promise<void> {
  await asBefore0060(db);
  await requiredAgain(
    db,
    '0059-decision-content-hash-optional',
    'decisions',
    sql`update decisions set content_sha256 = (select v.content_sha256
      from template_versions as v
      where v.tenant_id = decisions.tenant_id and v.id = decisions.consent_version_id)`,
  );
}

/**
 * Takes migration 0060 back off a store: its cookie choices' `content_sha256` required again and
 * filled with their configurations' hashes, as 0.8.0 wrote every choice's; 0060 pending.
 */
export async function asBefore0060(db: Db): Promise<void> {
  await asBefore0061(db);
  await requiredAgain(
    db,
    '0060-cookie-choice-content-hash-optional',
    'cookie_decisions',
    sql`update cookie_decisions set content_sha256 = (select c.content_sha256
      from cookie_configurations as c
      where c.tenant_id = cookie_decisions.tenant_id and c.id = cookie_decisions.configuration_id)`,
  );
}

/** PostgreSQL's decision time columns, which migration 0061 makes `timestamptz`. */
export const decisionTimeColumns = [
  ['decisions', 'decided_at'],
  ['customer_template_states', 'last_decided_at'],
  ['customer_version_states', 'last_decided_at'],
] as const;

/**
 * A PostgreSQL store as release 0.9.0 left it, its decision times text, and 0061 recorded as
 * applied, as it is on a store 0061 kept as text (one partitioned by time), so that a test app,
 * which migrates on its start, leaves them so. The service runs on it as on the `timestamptz`
 * times every other test's store has; `platform/decision-times.test.ts` compares the two.
 */
export const postgresTextTimesStore = postgresStoreWithout(asBefore0061, [
  '0061-decision-times-timestamptz',
]);

/**
 * The tests' PostgreSQL store as an earlier release left it: migrated, then migrations taken back
 * (`takeBack`, an `asBeforeNNNN`) and recorded as applied (`kept`) before a test app opens it,
 * so that the app, which migrates on its start, leaves them off.
 */
function postgresStoreWithout(
  takeBack: (db: Db) => Promise<void>,
  kept: readonly string[],
): TestStore {
  return storeWithout(postgresStore, takeBack, kept);
}

/** `postgresStoreWithout`, of either store. */
function storeWithout(
  store: TestStore,
  takeBack: (db: Db) => Promise<void>,
  kept: readonly string[],
): TestStore {
  return {
    name: store.name,
    create: () => store.create(),
    async createMigrated() {
      const created = await (store.createMigrated as NonNullable<TestStore['createMigrated']>)();
      const db = createDb(loadConfig({ DATABASE_URL: created.databaseUrl }));
      try {
        await takeBack(db);
        for (const name of kept) {
          await sql`insert into kysely_migration (name, timestamp)
            values (${name}, ${new Date().toISOString()})`.execute(db);
        }
      } finally {
        await db.destroy();
      }
      return created;
    },
  };
}

/**
 * Takes migration 0061 back off a store: PostgreSQL's decision times text again, as 0.9.0 and
 * the releases before it wrote them (ISO 8601 in UTC with milliseconds); 0061 pending, and the
 * migrations after it taken back first (`asBefore0062`).
 */
export async function asBefore0061(db: Db): Promise<void> {
  await asBefore0062(db);
  await sql`delete from kysely_migration where name = '0061-decision-times-timestamptz'`.execute(
    db,
  );
  if (!isPostgres(db)) return;
  await sql`delete from store_settings where name = 'decision_times_kept_as_text'`.execute(db);
  for (const [table, column] of decisionTimeColumns) {
    await sql`alter table ${sql.table(table)} alter column ${sql.ref(column)} type text
      using to_char(${sql.ref(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`.execute(
      db,
    );
  }
  forgetIdType(db);
}

/** A table's `content_sha256` required again and filled by `fill`; the migration pending. */
async function requiredAgain(
  db: Db,
  migration: string,
  table: string,
  fill: RawBuilder<unknown>,
): Promise<void> {
  await sql`delete from kysely_migration where name = ${migration}`.execute(db);
  if (isPostgres(db)) {
    await fill.execute(db);
    await sql`alter table ${sql.table(table)} alter column content_sha256 set not null`.execute(db);
    return;
  }
  await sql`alter table ${sql.table(table)} drop column content_sha256`.execute(db);
  await sql`alter table ${sql.table(table)} add column content_sha256 text not null default ''`.execute(
    db,
  );
  await fill.execute(db);
}

/**
 * A PostgreSQL store as release 0.10.0 left it, its log entries' leaves and times text, and 0062
 * recorded as applied, so that a test app, which migrates on its start, leaves them so. The
 * service runs on it as on the `bytea` leaves and `timestamptz` times every other test's store
 * has; `decision-log/log-entry-types.test.ts` compares the two.
 */
export const postgresTextLogStore = postgresStoreWithout(asBefore0062, ['0062-log-entries-binary']);

/**
 * Takes migration 0062 back off a store: PostgreSQL's log entries keep their leaf's hash as 64
 * lowercase hex digits and their time as ISO 8601 text again, as 0.10.0 and the releases before
 * it wrote them; 0062 pending, and the migrations after it taken back first (`asBefore0063`).
 */
export async function asBefore0062(db: Db): Promise<void> {
  await asBefore0063(db);
  await sql`delete from kysely_migration where name = '0062-log-entries-binary'`.execute(db);
  if (!isPostgres(db)) return;
  await sql`delete from store_settings where name = 'log_times_kept_as_text'`.execute(db);
  const types = await columnTypes(db, 'tlog_entries', ['leaf', 'integrated_at']);
  const changes = [];
  if (types.leaf === 'bytea') {
    changes.push(sql`alter column leaf type text using encode(leaf, 'hex')`);
  }
  if (types.integrated_at === 'timestamp with time zone') {
    changes.push(sql`alter column integrated_at type text
      using to_char(integrated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);
  }
  if (changes.length > 0) await sql`alter table tlog_entries ${sql.join(changes)}`.execute(db);
  forgetIdType(db);
}

/**
 * A leaf's hash (64 hex digits) as the store's `tlog_entries.leaf` holds it, for a test that
 * writes the column itself: 32 bytes on PostgreSQL since migration 0062 and on SQLite since 0069,
 * the hex before them.
 */
export async function storedLeaf(db: Db, hex: string): Promise<RawBuilder<string>> {
  if (!isPostgres(db)) {
    return (await resolveLogKey(db)) === 'number' ? sql<string>`unhex(${hex})` : sql`${hex}`;
  }
  await resolveIdType(db);
  return knownTypes(db)?.log.leaf === 'bytea' ? sql<string>`decode(${hex}, 'hex')` : sql`${hex}`;
}

/**
 * A customer's look-up (64 hex digits, `vault.lookup`) as the store's `subjects.lookup` holds it,
 * for a test that finds or writes subjects itself: 32 bytes in a PostgreSQL `bytea` column, the
 * hex in a `text` one (`LookupType`, src/platform/id-type.ts).
 */
export async function storedLookup(db: Db, hex: string): Promise<RawBuilder<string>> {
  await resolveIdType(db);
  return subjectLookup(db, hex);
}

/**
 * A PostgreSQL store as release 0.11.0 left it, its subjects' look-ups text, and 0063 recorded as
 * applied, so that a test app, which migrates on its start, leaves them so. The service runs on
 * it as on the `bytea` look-ups every other test's store has; `subjects/lookup-types.test.ts`
 * compares the two.
 */
export const postgresTextLookupsStore = postgresStoreWithout(asBefore0063, [
  '0063-subject-lookups-binary',
]);

/**
 * Takes migration 0063 back off a store: PostgreSQL's subjects keep their look-up as 64
 * lowercase hex digits again, as 0.11.0 and the releases before it wrote them; 0063 pending,
 * and the migration after it taken back first (`asBefore0064`).
 */
export async function asBefore0063(db: Db): Promise<void> {
  await asBefore0064(db);
  await sql`delete from kysely_migration where name = '0063-subject-lookups-binary'`.execute(db);
  if (!isPostgres(db)) return;
  await sql`delete from store_settings where name = 'lookups_kept_as_text'`.execute(db);
  if ((await columnTypes(db, 'subjects', ['lookup'])).lookup === 'bytea') {
    await sql`alter table subjects alter column lookup type text
      using encode(lookup, 'hex')`.execute(db);
  }
  forgetIdType(db);
}

/** A PostgreSQL table's columns' types by name (`information_schema.columns.data_type`). */
export async function columnTypes(
  db: Db,
  table: string,
  columns: readonly string[],
): Promise<Record<string, string>> {
  const { rows } = await sql<{ column_name: string; data_type: string }>`select column_name,
      data_type
    from information_schema.columns
    where table_schema = current_schema() and table_name = ${table}
      and column_name in (${sql.join(columns)})`.execute(db);
  return Object.fromEntries(rows.map((row) => [row.column_name, row.data_type]));
}

/**
 * A PostgreSQL store as release 0.12.0 left it, the keys of its customers' states leading with
 * the tenant, and 0064 and every migration after it recorded as applied, so that a test app,
 * which migrates on its start, leaves it so. The service runs on it as on the keys led by the subject every other test's
 * store has; `decisions/state-keys.test.ts` compares the two.
 */
export const postgresTenantStateKeysStore = postgresStoreWithout(
  asBefore0064,
  // And every later one, as 0.12.0 left the store: 0071 drops the tenant's column such keys hold.
  Object.keys(migrations(testDataKey)).filter((name) => name >= '0064'),
);

/**
 * Takes migration 0064 back off a store: PostgreSQL's keys of a customer's states lead with the
 * tenant again, as 0.12.0 and the releases before it made them; 0064 pending, and the migration
 * after it taken back first (`asBefore0065`).
 */
export async function asBefore0064(db: Db): Promise<void> {
  await asBefore0065(db);
  await sql`delete from kysely_migration where name = '0064-state-keys-without-tenant'`.execute(db);
  if (!isPostgres(db)) return;
  const keys = [
    {
      table: 'customer_version_states',
      columns: sql`(tenant_id, subject_id, consent_version_id)
        include (last_decision, last_decided_at)`,
    },
    { table: 'customer_template_states', columns: sql`(tenant_id, subject_id, template_id)` },
  ];
  for (const { table, columns } of keys) await primaryKeyOn(db, table, columns);
  forgetIdType(db);
}

/**
 * A PostgreSQL store as release 0.13.0 left it, the keys of its control kinds' states leading
 * with the tenant, and 0065 recorded as applied, so that a test app, which migrates on its
 * start, leaves them so. The service runs on it as on the keys without the tenant every other
 * test's store has; `record-kinds/control-state-keys.test.ts` compares the two.
 */
export const postgresTenantControlStateKeysStore = postgresStoreWithout(asBefore0065, [
  '0065-control-state-keys-without-tenant',
]);

/**
 * Takes migration 0065 back off a store: PostgreSQL's keys of the control kinds' states (and
 * the partners' blocks' index by subject) lead with the tenant again, as 0.13.0 and the releases
 * before it made them; 0065 pending, and the migration after it taken back first
 * (`asBefore0066`).
 */
export async function asBefore0065(db: Db): Promise<void> {
  await asBefore0066(db);
  await sql`delete from kysely_migration
    where name = '0065-control-state-keys-without-tenant'`.execute(db);
  if (!isPostgres(db)) return;
  const keys = [
    { table: 'channel_states', columns: sql`(tenant_id, subject_id, product_id, channel)` },
    { table: 'partner_block_states', columns: sql`(tenant_id, decision_id, partner_code)` },
  ];
  for (const { table, columns } of keys) await primaryKeyOn(db, table, columns);
  await sql`drop index partner_block_states_subject_idx`.execute(db);
  await sql`create index partner_block_states_subject_idx
    on partner_block_states (tenant_id, subject_id)`.execute(db);
}

/**
 * Gives a PostgreSQL table's primary key (`<table>_pk`) other columns, as an earlier release
 * made it: the new key built beside the old one and swapped in under its name.
 */
async function primaryKeyOn(db: Db, table: string, columns: RawBuilder<unknown>): Promise<void> {
  const key = `${table}_pk`;
  await sql`create unique index ${sql.id(`${key}_old`)} on ${sql.table(table)} ${columns}`.execute(
    db,
  );
  await sql`alter table ${sql.table(table)} drop constraint ${sql.id(key)},
    add constraint ${sql.id(key)} primary key using index ${sql.id(`${key}_old`)}`.execute(db);
}

/** The columns of a PostgreSQL index's key, in order, from the catalogue. */
export async function keyColumns(db: Db, index: string): Promise<string[]> {
  const { rows } = await sql<{ column: string }>`select a.attname as column
    from pg_index as i
    cross join lateral unnest(i.indkey) with ordinality as k(attnum, n)
    join pg_attribute as a on a.attrelid = i.indrelid and a.attnum = k.attnum
    where i.indexrelid = to_regclass(${index}) and k.n <= i.indnkeyatts
    order by k.n`.execute(db);
  return rows.map((row) => row.column);
}

/** Every table, index and trigger of a SQLite store as its catalogue writes them. */
export async function sqliteSchema(db: Db): Promise<unknown[]> {
  return (await sql`select type, name, sql from sqlite_master order by name`.execute(db)).rows;
}

/**
 * Brings a SQLite store to the schema before `first` (`migrateBefore`), migrates it to the latest
 * and checks that its schema is as it was through `through`, the last migration before the first
 * after it that changes SQLite's (0069, then 0072), for a migration that changes PostgreSQL's
 * alone: the names applied, for the test to compare with its own list.
 */
export async function migratedKeepingSqliteSchema(
  db: Db,
  first: string,
  through = '0068-log-nodes-from-level-6',
): Promise<string[]> {
  await migrateBefore(db, first);
  const before = await sqliteSchema(db);
  const { error, results } = await serviceMigrator(db, testDataKey).migrateTo(through);
  if (error) throw error;
  expect(await sqliteSchema(db)).toEqual(before);
  return [
    ...(results ?? []).map((result) => result.migrationName),
    ...(await migrateToLatest(db, testDataKey)),
  ];
}

/**
 * The sealed columns of PostgreSQL's store (`SealedType`, src/platform/id-type.ts), by table:
 * `bytea` since 0066, base64 text before.
 */
export const sealedColumns: Readonly<Record<string, readonly string[]>> = {
  decisions: ['personal', 'evidence_salt'],
  cookie_decisions: ['personal', 'evidence_salt'],
  channel_changes: ['personal', 'evidence_salt'],
  partner_block_changes: ['personal', 'evidence_salt'],
  request_steps: ['personal', 'evidence_salt'],
  subject_requests: ['personal'],
  subjects: ['wrapped_key', 'salt', 'commitment'],
};

/**
 * A PostgreSQL store as release 0.14.0 left it, its sealed columns base64 text, and 0066
 * recorded as applied, so that a test app, which migrates on its start, leaves them so. The
 * service runs on it as on the `bytea` columns every other test's store has;
 * `subjects/sealed-types.test.ts` compares the two.
 */
export const postgresTextSealedStore = postgresStoreWithout(asBefore0066, [
  '0066-sealed-columns-binary',
]);

/**
 * Takes migration 0066 back off a store: PostgreSQL's sealed columns keep their values as base64
 * text again, as 0.14.0 and the releases before it wrote them; 0066 pending, and the migration
 * after it taken back first (`asBefore0067`).
 */
export async function asBefore0066(db: Db): Promise<void> {
  await asBefore0067(db);
  await sql`delete from kysely_migration where name = '0066-sealed-columns-binary'`.execute(db);
  if (!isPostgres(db)) return;
  await sql`delete from store_settings where name = 'sealed_kept_as_text'`.execute(db);
  if ((await columnTypes(db, 'decisions', ['personal'])).personal === 'bytea') {
    for (const [table, columns] of Object.entries(sealedColumns)) {
      const changes = columns.map(
        (column) => sql`alter column ${sql.id(column)} type text
          using replace(encode(${sql.id(column)}, 'base64'), E'\n', '')`,
      );
      await sql`alter table ${sql.table(table)} ${sql.join(changes)}`.execute(db);
    }
  }
  forgetIdType(db);
}

/**
 * Takes migration 0067 back off a store: PostgreSQL's key of a customer's decisions by time
 * carries the decision's id again, as 0.14.0 and the releases before it made it; 0067 pending,
 * and the migration after it taken back first (`asBefore0068`).
 */
export async function asBefore0067(db: Db): Promise<void> {
  await asBefore0068(db);
  await sql`delete from kysely_migration
    where name = '0067-customer-time-key-without-id'`.execute(db);
  if (!isPostgres(db)) return;
  await sql`drop index decisions_customer_time_idx`.execute(db);
  await sql`create index decisions_customer_time_idx
    on decisions (subject_id, decided_at, id)`.execute(db);
}

/**
 * Takes migration 0068 back off a store: 0068 pending. Its schema is the same before and after;
 * the log's subtrees of 16 and 32 leaves that 0.15.0 wrote, and 0068 removes, are not made again,
 * since only 0.14.0 read them from the table (test/decision-log/log-nodes-migration.test.ts
 * writes them as 0.15.0 did).
 */
export async function asBefore0068(db: Db): Promise<void> {
  await asBefore0069(db);
  await sql`delete from kysely_migration where name = '0068-log-nodes-from-level-6'`.execute(db);
}

/**
 * Takes migration 0069 back off a store: the log's entries name their log by its id again, and
 * SQLite's keep their leaves as hex, as 0.16.0 and the releases before it made them; the logs
 * lose their numbers; 0069 pending.
 */
export async function asBefore0069(db: Db): Promise<void> {
  await asBefore0070(db);
  await sql`delete from kysely_migration where name = '0069-log-entries-by-number'`.execute(db);
  if ((await columnsOf(db, 'tlog_entries')).includes('log_id')) return;
  if (isPostgres(db)) {
    const { log_id: idType } = await columnTypes(db, 'tlog_logs', ['log_id']);
    await sql`create function pg_temp.tlog_id(n integer) returns ${sql.raw(idType ?? 'text')}
      language sql stable as 'select log_id from tlog_logs where no = n'`.execute(db);
    await sql`alter table tlog_entries
      alter column log_no type ${sql.raw(idType ?? 'text')} using pg_temp.tlog_id(log_no)`.execute(
      db,
    );
    await sql`alter table tlog_entries rename column log_no to log_id`.execute(db);
    await sql`drop function pg_temp.tlog_id(integer)`.execute(db);
    await sql`alter table tlog_logs drop column no`.execute(db);
  } else {
    // As 0052 made it, word for word: a test compares the schema's text.
    await sql
      .raw(
        'CREATE TABLE "tlog_entries_by_id" ("log_id" text not null, "idx" integer not null, ' +
          '"record_id" text not null, "leaf" text not null, "integrated_at" text not null, ' +
          'constraint "tlog_entries_pk" primary key ("log_id", "idx")) without rowid',
      )
      .execute(db);
    await sql`insert into tlog_entries_by_id
      select l.log_id, e.idx, e.record_id, lower(hex(e.leaf)), e.integrated_at
      from tlog_entries as e join tlog_logs as l on l.no = e.log_no
      order by l.log_id, e.idx`.execute(db);
    await sql`drop table tlog_entries`.execute(db);
    await sql`alter table tlog_entries_by_id rename to tlog_entries`.execute(db);
    await sql
      .raw('CREATE UNIQUE INDEX "tlog_entries_record_uq" on "tlog_entries" ("log_id", "record_id")')
      .execute(db);
    await sql`drop index tlog_logs_no_uq`.execute(db);
    await sql`alter table tlog_logs drop column no`.execute(db);
  }
  forgetLogKey(db);
}

/**
 * A PostgreSQL store as release 0.17.0 left it, its subjects' times text, and 0070 recorded as
 * applied, so that a test app, which migrates on its start, leaves them so. The service runs on
 * it as on the `timestamptz` times every other test's store has; `subjects/subject-times.test.ts`
 * compares the two.
 */
export const postgresTextSubjectTimesStore = postgresStoreWithout(asBefore0070, [
  '0070-subject-times-timestamptz',
]);

/**
 * Takes migration 0070 back off a store: PostgreSQL's subjects' times text again, as 0.17.0 and
 * the releases before it kept them (ISO 8601 in UTC with milliseconds); 0070 pending, and the
 * migration after it taken back first (`asBefore0071`).
 */
export async function asBefore0070(db: Db): Promise<void> {
  await asBefore0071(db);
  await sql`delete from kysely_migration where name = '0070-subject-times-timestamptz'`.execute(db);
  if (!isPostgres(db)) return;
  if ((await columnTypes(db, 'subjects', ['created_at'])).created_at === 'text') return;
  const asText = (column: string) =>
    sql`alter column ${sql.ref(column)} type text
      using to_char(${sql.ref(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  await sql`alter table subjects ${asText('created_at')}, ${asText('erased_at')}`.execute(db);
  forgetIdType(db);
}

/** A table's columns, in order, from the store's catalogue. */
export async function columnsOf(db: Db, table: string): Promise<string[]> {
  const { rows } = isPostgres(db)
    ? await sql<{ name: string }>`select column_name::text as name
        from information_schema.columns
        where table_schema = current_schema() and table_name = ${table}
        order by ordinal_position`.execute(db)
    : await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(db);
  return rows.map((row) => row.name);
}

/**
 * A PostgreSQL store as release 0.18.0 left it, its customers' states naming their tenant in a
 * column, and 0071 recorded as applied, so that a test app, which migrates on its start, leaves
 * them so. The service runs on it as on the states without it every other test's store has;
 * `decisions/state-tenant.test.ts` compares the two.
 */
export const postgresStatesWithTenantStore = postgresStoreWithout(asBefore0071, [
  '0071-states-without-tenant',
]);

/**
 * Takes migration 0071 back off a store: PostgreSQL's customers' states name their tenant in a
 * column again, as 0.18.0 and the releases before it wrote them (last in the row, where 0001 had
 * it first: no statement reads the columns by their place), each state's from its subject; 0071
 * pending.
 */
export async function asBefore0071(db: Db): Promise<void> {
  await asBefore0072(db);
  await sql`delete from kysely_migration where name = '0071-states-without-tenant'`.execute(db);
  if (!isPostgres(db)) return;
  for (const table of ['customer_version_states', 'customer_template_states']) {
    if ((await columnsOf(db, table)).includes('tenant_id')) continue;
    const type = (await columnTypes(db, 'subjects', ['tenant_id'])).tenant_id as string;
    await sql`alter table ${sql.table(table)} add column tenant_id ${sql.raw(type)}`.execute(db);
    await sql`update ${sql.table(table)} as st set tenant_id = s.tenant_id
      from subjects as s where s.id = st.subject_id`.execute(db);
    await sql`alter table ${sql.table(table)} alter column tenant_id set not null`.execute(db);
  }
  forgetIdType(db);
}

/**
 * SQLite's indexes that 0072 makes anew, as 0.18.0 has them, word for word (a test compares the
 * schema's text); the tables' key clauses are the migration's own (`sqliteKeys.tables`).
 */
const sqliteIndexesBefore0072: Readonly<Record<string, string>> = {
  decisions_customer_time_idx:
    'CREATE INDEX "decisions_customer_time_idx" on "decisions" ' +
    '("tenant_id", "subject_id", "decided_at", "id")',
  cookie_decisions_subject_idx:
    'CREATE INDEX "cookie_decisions_subject_idx" on "cookie_decisions" ("tenant_id", "subject_id")',
  cookie_decisions_customer:
    'CREATE INDEX "cookie_decisions_customer" on "cookie_decisions" ' +
    '("tenant_id", "customer_subject_id", "decided_at") where "customer_subject_id" is not null',
  channel_changes_subject_idx:
    'CREATE INDEX "channel_changes_subject_idx" on "channel_changes" ' +
    '("tenant_id", "subject_id", "changed_at")',
  channel_changes_channel_idx:
    'CREATE INDEX "channel_changes_channel_idx" on "channel_changes" ' +
    '("tenant_id", "subject_id", "product_id", "channel", "changed_at")',
  partner_block_changes_subject_idx:
    'CREATE INDEX "partner_block_changes_subject_idx" on "partner_block_changes" ' +
    '("tenant_id", "subject_id", "changed_at")',
  partner_block_changes_decision_idx:
    'CREATE INDEX "partner_block_changes_decision_idx" on "partner_block_changes" ' +
    '("tenant_id", "decision_id", "partner_code", "changed_at")',
};

/**
 * Takes migration 0072 back off a store: SQLite's keys of decisions, cookie choices and control
 * changes lead with the tenant's id again, as 0.18.0 and the releases before it kept them, and
 * the statistics it wrote are gone; 0072 pending. PostgreSQL: nothing to take back.
 */
export async function asBefore0072(db: Db): Promise<void> {
  await asBefore0073(db);
  await sql`delete from kysely_migration where name = '0072-sqlite-keys-without-tenant'`.execute(
    db,
  );
  if (isPostgres(db)) return;
  for (const { name: table, keys } of sqliteKeys.tables) {
    const { rows } = await sql<{ type: string; name: string; sql: string }>`select type, name, sql
      from sqlite_master where tbl_name = ${table} and sql is not null`.execute(db);
    const definition = rows.find((row) => row.type === 'table')?.sql ?? '';
    if (!keys.some(([, after]) => definition.includes(after))) continue;
    let made = definition.replace(
      /^create table "?[a-z_]+"?/i,
      `create table "${table}_by_tenant"`,
    );
    for (const [before, after] of keys) made = made.replace(after, before);
    await sql.raw(made).execute(db);
    await sql.raw(`insert into "${table}_by_tenant" select * from "${table}"`).execute(db);
    await sql.raw(`drop table "${table}"`).execute(db);
    await sql.raw(`alter table "${table}_by_tenant" rename to "${table}"`).execute(db);
    for (const index of rows.filter((row) => row.type === 'index')) {
      await sql.raw(sqliteIndexesBefore0072[index.name] ?? index.sql).execute(db);
    }
    await sql`delete from sqlite_stat1 where tbl = ${table}`.execute(db);
  }
}

/**
 * A SQLite store as release 0.19.0 left it, its customers' states naming their tenant in a
 * column and leading their key with it, and 0073 recorded as applied, so that a test app, which
 * migrates on its start, leaves them so. `decisions/state-tenant.test.ts` compares the service on
 * it with the service on the states without it every other test's SQLite store has.
 */
export const sqliteStatesWithTenantStore = storeWithout(sqliteStore, asBefore0073, [
  '0073-sqlite-states-without-tenant',
  '0074-sqlite-binary-ids',
]);

/**
 * Takes migration 0073 back off a store: SQLite's customers' states name their tenant in a
 * column again, first in the row and in the key, as 0.19.0 and the releases before it made them
 * (0.19.0's definitions, word for word: the migration's own clauses put back), each state's from
 * its subject; 0073 pending, and 0074 taken back first. PostgreSQL: nothing to take back.
 */
export async function asBefore0073(db: Db): Promise<void> {
  await asBefore0074(db);
  await sql`delete from kysely_migration where name = '0073-sqlite-states-without-tenant'`.execute(
    db,
  );
  if (isPostgres(db)) return;
  for (const { name: table } of sqliteStates.tables) {
    const { rows } = await sql<{ sql: string }>`select sql from sqlite_master
      where type = 'table' and name = ${table}`.execute(db);
    const definition = rows[0]?.sql ?? '';
    if (definition.includes('"tenant_id"')) continue;
    const made = definition
      .replace(/^create table "?[a-z_]+"?/i, `create table "${table}_by_tenant"`)
      .replace(
        '("subject_id" text not null',
        `(${sqliteStates.tenantColumn}"subject_id" text not null`,
      )
      .replace('primary key (', sqliteStates.tenantKey);
    await sql.raw(made).execute(db);
    await sql
      .raw(`insert into "${table}_by_tenant" select s.tenant_id, st.*
      from "${table}" as st join subjects as s on s.id = st.subject_id`)
      .execute(db);
    await sql.raw(`drop table "${table}"`).execute(db);
    await sql.raw(`alter table "${table}_by_tenant" rename to "${table}"`).execute(db);
  }
  forgetIdType(db);
}

/**
 * A SQLite store as 0.21.0 left it, its ids text, and 0074 recorded as applied, so that a test
 * app, which migrates on its start, leaves them so (`platform/sqlite-binary-ids.test.ts`).
 */
export const sqliteTextIdsStore = storeWithout(sqliteStore, asBefore0074, [
  '0074-sqlite-binary-ids',
]);

/**
 * Takes migration 0074 back off a store: SQLite's ids held as text again, as 0.21.0 and every
 * release before it wrote them (each 16-byte blob of every column not declared `blob` its UUID's
 * lowercase text, the store's header back to 0); 0074 pending. PostgreSQL: nothing to take back.
 */
export async function asBefore0074(db: Db): Promise<void> {
  await sql`delete from kysely_migration where name = '0074-sqlite-binary-ids'`.execute(db);
  if (isPostgres(db)) return;
  await sql`pragma foreign_keys = off`.execute(db);
  await db.transaction().execute(async (trx) => {
    const { rows: tables } = await sql<{ name: string }>`select name from sqlite_schema
      where type = 'table' and name not like 'sqlite%' and name not like 'kysely%'`.execute(trx);
    for (const { name } of tables) {
      const { rows: columns } = await sql<{ name: string; type: string }>`select name, type
        from pragma_table_info(${name})`.execute(trx);
      for (const column of columns.filter((c) => c.type.toLowerCase() !== 'blob')) {
        const c = `"${column.name}"`;
        await sql
          .raw(
            `update "${name}" set ${c} = ${sqliteIdText(c)} where typeof(${c}) = 'blob' and length(${c}) = 16`,
          )
          .execute(trx);
      }
    }
    await sql.raw('pragma user_version = 0').execute(trx);
  });
  await sql`pragma foreign_keys = on`.execute(db);
}
