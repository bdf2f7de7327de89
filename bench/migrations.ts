/**
 * What the migrations that rewrite or rebuild a table that grows with the records cost a store of
 * `BENCH_LEAVES` records, each with its leaf (default 1,000,000):
 * - 0048 (the log's nodes from level 4 up) on `tlog_nodes` as release 0.3.0 kept it, every
 *   complete subtree, about 2 rows a leaf;
 * - 0052 (each leaf's hash instead of its text) on `tlog_entries` as release 0.4.0 kept it, each
 *   leaf's text;
 * - 0055 (PostgreSQL's keys of cookie choices and subjects without the tenant) on
 *   `cookie_decisions` and `subjects` as release 0.5.0 kept them, each choice a new visitor's,
 *   with its subject (nothing to do on SQLite);
 * - 0056 (PostgreSQL's keys of control changes without the tenant) on `channel_changes` and
 *   `partner_block_changes` as release 0.5.0 kept them, each as many changes as there are
 *   records, two a customer (nothing to do on SQLite);
 * - 0057 (PostgreSQL's key of the log's entries by record without the log) on `tlog_entries` as
 *   release 0.5.0 keeps it, each leaf's hash, two tenants' logs (nothing to do on SQLite);
 * - 0058 (PostgreSQL's ids as `uuid`) on a store of decisions as release 0.6.0 keeps it: as many
 *   decisions as records, two a customer, with the customers' subjects and states and the log's
 *   entries (nothing to do on SQLite);
 * - 0059 (a decision's copy of the text's hash made optional) on `decisions` as release 0.7.0
 *   keeps it, two a customer: on PostgreSQL a change of the catalogue, on SQLite every row
 *   written again;
 * - 0060 (a cookie choice's copy of the configuration's hash made optional) on
 *   `cookie_decisions` as release 0.8.0 keeps it, each choice a new visitor's, as 0059;
 * - 0061 (PostgreSQL's decision times as `timestamptz`) on `decisions` and the customers' two
 *   state tables as release 0.9.0 keeps them, two decisions a customer (nothing to do on
 *   SQLite);
 * - 0062 (PostgreSQL's log leaves as `bytea`, their times as `timestamptz`) on `tlog_entries` as
 *   release 0.10.0 keeps it, each leaf's hash as hex text, two tenants' logs (nothing to do on
 *   SQLite);
 * - 0063 (PostgreSQL's subjects' look-ups as `bytea`) on `subjects` as release 0.11.0 keeps it,
 *   a subject a record, two tenants' (nothing to do on SQLite);
 * - 0064 (PostgreSQL's keys of a customer's states without the tenant) on the two state tables
 *   as release 0.12.0 keeps them, a state on a version a record (two a customer) and a state on
 *   a template a customer (nothing to do on SQLite);
 * - 0065 (PostgreSQL's keys of the control kinds' states without the tenant) on their two state
 *   tables as release 0.13.0 keeps them, a state of each a record (nothing to do on SQLite);
 * - 0066 (PostgreSQL's sealed columns as `bytea`) on `decisions` and `subjects` as release
 *   0.14.0 keeps them, two decisions a customer, each value base64 text of its real size
 *   (nothing to do on SQLite);
 * - 0067 (PostgreSQL's key of a customer's decisions by time without the id) on `decisions` as
 *   0.14.0 keeps it after 0066, two decisions a customer (nothing to do on SQLite);
 * - 0068 (the log's nodes from level 6 up) on `tlog_nodes` as release 0.15.0 keeps it, every
 *   complete subtree of 16 leaves or more, about a row for 8 leaves;
 * - 0069 (the log's entries named by their log's number, SQLite's leaves as bytes) on
 *   `tlog_entries` as release 0.16.0 keeps it, two tenants' logs in time order, random record
 *   ids;
 * - 0070 (PostgreSQL's subjects' times as `timestamptz`) on `subjects` as release 0.17.0 keeps
 *   it, a customer for two records, with their decisions (nothing to do on SQLite);
 * - 0071 (PostgreSQL's customers' states without their tenant's column) on the two state tables
 *   as release 0.18.0 keeps them, as for 0064 (nothing to do on SQLite);
 * - 0072 (SQLite's keys of decisions, cookie choices and control changes without the tenant)
 *   on `decisions` and `cookie_decisions` as release 0.18.0 keeps them on SQLite: two decisions
 *   a customer, with the customers' subjects, and as many choices as records, each a new
 *   visitor's (nothing to do on PostgreSQL);
 * - 0073 (SQLite's customers' states without their tenant) on the two state tables as release
 *   0.19.0 keeps them on SQLite, as for 0064 (nothing to do on PostgreSQL).
 *
 * `BENCH_MIGRATIONS` picks them (default all of the above). On an SQLite
 * file, or on PostgreSQL
 * with `BENCH_DATABASE_URL` (a server whose user may create a database; one is made and dropped
 * for each migration).
 *
 *   npm run bench:migrations
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench:migrations
 *
 * Prints one JSON line a migration: the store, the records, the rows and bytes of each table it
 * changes before and after, and the migration's time, in all and per million records. The
 * hashes, leaves and ids are random: 0048 copies rows by their level and never reads a hash, 0052
 * hashes whatever text a leaf holds, 0055 builds keys over whatever ids the rows hold.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Migration, Migrator, type RawBuilder, sql } from 'kysely';
import { loadConfig } from '../src/platform/config.js';
import { createDb, type Db, isPostgres } from '../src/platform/db.js';
import { migrations, serviceMigrator } from '../src/platform/migrate.js';
import { testDataKey } from '../test/helpers/app.js';
import { dropDatabase, recreateDatabase } from './postgres.js';

const leaves = Number(process.env.BENCH_LEAVES ?? 1_000_000);
const adminUrl = process.env.BENCH_DATABASE_URL;
const logId = '0190e8a0-0000-7000-8000-00000000b0b0';
/** Two tenants' ids, as the service makes them (text UUIDs, the bytes the keys carried). */
const tenants = ['0190e8a0-0000-7000-8000-00000000a001', '0190e8a0-0000-7000-8000-00000000a002'];

type Table =
  | 'tlog_nodes'
  | 'tlog_entries'
  | 'cookie_decisions'
  | 'subjects'
  | 'channel_changes'
  | 'partner_block_changes'
  | 'decisions'
  | 'customer_template_states'
  | 'customer_version_states'
  | 'channel_states'
  | 'partner_block_states';

/** A migration measured: its name, the tables it changes, and how the release before filled them. */
interface Measured {
  name: string;
  tables: Table[];
  fill(db: Db): Promise<void>;
  /**
   * The tables' bytes also measured once packed (`vacuum full` on PostgreSQL, `vacuum` on
   * SQLite), before the migration, for one that builds every index again (packed) to be compared
   * with that.
   */
  packBefore?: boolean;
}

const measured: Measured[] = [
  { name: '0048-log-nodes-from-level-4', tables: ['tlog_nodes'], fill: (db) => fillNodes(db, 0) },
  { name: '0052-log-leaf-hashes', tables: ['tlog_entries'], fill: fillLeafTexts },
  {
    name: '0055-choice-and-subject-keys-without-tenant',
    tables: ['cookie_decisions', 'subjects'],
    fill: fillChoices,
  },
  {
    name: '0056-control-change-keys-without-tenant',
    tables: ['channel_changes', 'partner_block_changes'],
    fill: fillControlChanges,
  },
  { name: '0057-log-record-key-without-log', tables: ['tlog_entries'], fill: fillLeafHashes },
  {
    name: '0058-uuid-ids',
    tables: [
      'decisions',
      'subjects',
      'customer_template_states',
      'customer_version_states',
      'tlog_entries',
    ],
    fill: fillDecisions,
    packBefore: true,
  },
  { name: '0059-decision-content-hash-optional', tables: ['decisions'], fill: fillDecisionHashes },
  {
    name: '0060-cookie-choice-content-hash-optional',
    tables: ['cookie_decisions'],
    fill: fillChoiceHashes,
  },
  {
    name: '0061-decision-times-timestamptz',
    tables: ['decisions', 'customer_template_states', 'customer_version_states'],
    fill: fillDecisionTimes,
    packBefore: true,
  },
  {
    name: '0062-log-entries-binary',
    tables: ['tlog_entries'],
    fill: fillLogEntries,
    packBefore: true,
  },
  {
    name: '0063-subject-lookups-binary',
    tables: ['subjects'],
    fill: fillSubjects,
    packBefore: true,
  },
  {
    name: '0064-state-keys-without-tenant',
    tables: ['customer_template_states', 'customer_version_states'],
    fill: fillStates,
    packBefore: true,
  },
  {
    name: '0065-control-state-keys-without-tenant',
    tables: ['channel_states', 'partner_block_states'],
    fill: fillControlStates,
    packBefore: true,
  },
  {
    name: '0066-sealed-columns-binary',
    tables: ['decisions', 'subjects'],
    fill: (db) => fillCustomersAndDecisions(db, 'text'),
    packBefore: true,
  },
  {
    name: '0067-customer-time-key-without-id',
    tables: ['decisions'],
    fill: (db) => fillCustomersAndDecisions(db, 'bytea'),
    packBefore: true,
  },
  { name: '0068-log-nodes-from-level-6', tables: ['tlog_nodes'], fill: (db) => fillNodes(db, 4) },
  {
    name: '0069-log-entries-by-number',
    tables: ['tlog_entries'],
    fill: fillLogsById,
    packBefore: true,
  },
  {
    name: '0070-subject-times-timestamptz',
    tables: ['subjects'],
    fill: (db) => fillCustomersAndDecisions(db, 'bytea'),
    packBefore: true,
  },
  {
    name: '0071-states-without-tenant',
    tables: ['customer_template_states', 'customer_version_states'],
    fill: fillStates,
    packBefore: true,
  },
  {
    name: '0072-sqlite-keys-without-tenant',
    tables: ['decisions', 'cookie_decisions'],
    fill: async (db) => {
      await fillSqliteCustomersAndDecisions(db);
      await fillChoiceHashes(db);
    },
    packBefore: true,
  },
  {
    name: '0073-sqlite-states-without-tenant',
    tables: ['customer_template_states', 'customer_version_states'],
    fill: fillSqliteStates,
    packBefore: true,
  },
  {
    name: '0074-sqlite-binary-ids',
    tables: ['decisions', 'subjects', 'customer_template_states', 'customer_version_states'],
    fill: async (db) => {
      await fillSqliteCustomersAndDecisions(db);
      await fillSqliteStates(db, 'no tenant');
    },
    packBefore: true,
  },
];
const picked = (
  process.env.BENCH_MIGRATIONS ??
  '0048,0052,0055,0056,0057,0058,0059,0060,0061,0062,0063,0064,0065,0066,0067,0068,0069,0070,0071,0072,0073,0074'
).split(',');

for (const migration of measured.filter((m) => picked.includes(m.name.slice(0, 4)))) {
  await measure(migration);
}

async function measure({ name, tables, fill, packBefore }: Measured): Promise<void> {
  const dir = adminUrl ? undefined : mkdtempSync(join(tmpdir(), 'bench-migrations-'));
  const dbName = `bench_migrations_${randomBytes(4).toString('hex')}`;
  const url = adminUrl
    ? await recreateDatabase(adminUrl, dbName)
    : `file:${join(dir as string, 'consent.db')}`;
  // Filling 20 million rows takes longer than the service lets a statement run.
  const db = createDb(loadConfig({ DATABASE_URL: url, DATABASE_STATEMENT_TIMEOUT_MS: '0' }));
  try {
    const all = Object.entries(migrations(testDataKey));
    await migrateUpTo(db, Object.fromEntries(all.filter(([other]) => other < name)));
    await fill(db);
    if (isPostgres(db)) {
      for (const table of tables) await sql`vacuum analyze ${sql.table(table)}`.execute(db);
    }

    const rowsBefore = await eachOf(tables, (table) => rows(db, table));
    const bytesBefore = await eachOf(tables, (table) => bytes(db, table));
    let packed: Record<string, number> | undefined;
    if (packBefore) {
      if (isPostgres(db)) {
        for (const table of tables) await sql`vacuum full analyze ${sql.table(table)}`.execute(db);
      } else {
        await sql`vacuum`.execute(db);
      }
      packed = await eachOf(tables, (table) => bytes(db, table));
    }
    // As a start applies it (in its transaction, without the statement timeout), alone: a later
    // migration may rewrite the same tables (0058 every one).
    const started = performance.now();
    const { error, results } = await serviceMigrator(db, testDataKey).migrateTo(name);
    const seconds = (performance.now() - started) / 1000;
    if (error || results?.[0]?.migrationName !== name)
      throw error ?? new Error(`${name} not applied`);
    console.log(
      JSON.stringify({
        migration: name,
        store: isPostgres(db) ? 'postgres' : 'sqlite',
        records: leaves,
        rows: { before: rowsBefore, after: await eachOf(tables, (table) => rows(db, table)) },
        bytes: {
          before: bytesBefore,
          ...(packed ? { before_packed: packed } : {}),
          after: await eachOf(tables, (table) => bytes(db, table)),
        },
        seconds: round(seconds),
        seconds_per_million_records: round((seconds * 1_000_000) / leaves),
      }),
    );
  } finally {
    await db.destroy();
    if (adminUrl) await dropDatabase(adminUrl, dbName);
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

/** Applies these migrations: the store as the release before the measured one left it. */
async function migrateUpTo(db: Db, chosen: Record<string, Migration>): Promise<void> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => chosen } });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error;
}

/** `tlog_nodes` with every complete subtree from `lowest` up: 0 as 0.3.0 kept it, 4 as 0.15.0. */
async function fillNodes(db: Db, lowest: number): Promise<void> {
  for (let level = lowest, width = 2 ** lowest; width <= leaves; level++, width *= 2) {
    const count = Math.floor(leaves / width);
    if (isPostgres(db)) {
      await sql`insert into tlog_nodes (log_id, level, idx, hash)
        select ${logId}, ${level}, i, md5(i::text) || md5((i + ${level})::text)
        from generate_series(0, ${count - 1}) as i`.execute(db);
    } else {
      await sql`with recursive n(i) as (select 0 union all select i + 1 from n where i < ${count - 1})
        insert into tlog_nodes (log_id, level, idx, hash)
        select ${logId}, ${level}, i, lower(hex(randomblob(32))) from n`.execute(db);
    }
  }
}

/**
 * `tlog_entries` as 0.4.0 kept it: each leaf's text, about 340 bytes as a decision's is (a header,
 * a record id and random lines).
 */
async function fillLeafTexts(db: Db): Promise<void> {
  if (isPostgres(db)) {
    await sql`insert into tlog_entries (log_id, idx, record_id, leaf, integrated_at)
      select ${logId}, i, md5(i::text),
        'consent-log/leaf/v1' || chr(10) || 'record ' || md5(i::text) || chr(10)
          || repeat(md5((i + 1)::text), 9) || chr(10),
        '2026-12-02T00:00:00.000Z'
      from generate_series(0, ${leaves - 1}) as i`.execute(db);
  } else {
    await sql`with recursive n(i) as (select 0 union all select i + 1 from n where i < ${leaves - 1})
      insert into tlog_entries (log_id, idx, record_id, leaf, integrated_at)
      select ${logId}, i, lower(hex(randomblob(16))),
        'consent-log/leaf/v1' || char(10) || 'record ' || lower(hex(randomblob(16))) || char(10)
          || lower(hex(randomblob(144))) || char(10),
        '2026-12-02T00:00:00.000Z'
      from n`.execute(db);
  }
}

/**
 * `tlog_entries` as 0.5.0 keeps it: each leaf's hash (64 hex digits), half the records in each of
 * two tenants' logs, in the order the integrator appends them (record ids as random UUIDs).
 */
async function fillLeafHashes(db: Db): Promise<void> {
  if (!isPostgres(db)) return; // 0057 changes nothing on SQLite: nothing to fill.
  await sql`insert into tlog_entries (log_id, idx, record_id, leaf, integrated_at)
    select case when i % 2 = 0 then ${tenants[0]} else ${tenants[1]} end, i / 2,
      gen_random_uuid()::text, md5(i::text) || md5((i + 1)::text),
      to_char(timestamp '2026-01-01' + i * interval '10 ms', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
    from generate_series(0, ${leaves - 1}) as i`.execute(db);
}

/**
 * `tlog_entries` as 0.10.0 keeps it on PostgreSQL: each leaf's hash as 64 hex digits, its time
 * ISO text, ids `uuid`, two tenants' logs in time order (0062 changes nothing on SQLite).
 */
async function fillLogEntries(db: Db): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`insert into tlog_entries (log_id, idx, record_id, leaf, integrated_at)
    select case when i % 2 = 0 then ${tenants[0]}::uuid else ${tenants[1]}::uuid end, i / 2,
      gen_random_uuid(), md5(i::text) || md5((i + 1)::text),
      to_char(timestamp '2026-01-01' + i * interval '10 ms', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
    from generate_series(0, ${leaves - 1}) as i`.execute(db);
}

/**
 * `tlog_entries` as 0.16.0 keeps it, with its two tenants' logs: named by their ids, the leaves
 * 32 bytes and the times `timestamptz` on PostgreSQL, hex and ISO text on SQLite; two tenants'
 * logs in time order, the records' ids random.
 */
async function fillLogsById(db: Db): Promise<void> {
  for (const tenant of tenants) {
    await db
      .insertInto('tlog_logs')
      .values({
        log_id: tenant,
        tenant_id: tenant,
        origin: `bench.example/${tenant}`,
        verifier_key: 'bench.example/log+00000000+AA==',
        created_at: '2026-01-01T00:00:00.000Z',
      })
      .execute();
  }
  if (isPostgres(db)) {
    await sql`insert into tlog_entries (log_id, idx, record_id, leaf, integrated_at)
      select case when i % 2 = 0 then ${tenants[0]}::uuid else ${tenants[1]}::uuid end, i / 2,
        gen_random_uuid(), sha256(int8send(i)),
        timestamptz '2026-01-01 00:00:00+00' + i * interval '10 ms'
      from generate_series(0, ${leaves - 1}) as i`.execute(db);
    return;
  }
  await sql`with recursive n(i) as (select 0 union all select i + 1 from n where i < ${leaves - 1})
    insert into tlog_entries (log_id, idx, record_id, leaf, integrated_at)
    select case when i % 2 = 0 then ${tenants[0]} else ${tenants[1]} end, i / 2,
      lower(printf('%s-%s-%s-%s-%s', hex(randomblob(4)), hex(randomblob(2)), hex(randomblob(2)),
        hex(randomblob(2)), hex(randomblob(6)))),
      lower(hex(randomblob(32))),
      strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01', '+' || (i / 100.0) || ' seconds')
    from n order by 1, 2`.execute(db);
}

/**
 * `subjects` as 0.11.0 keeps it on PostgreSQL: each look-up as 64 hex digits, ids `uuid`, two
 * tenants' customers (0063 changes nothing on SQLite).
 */
async function fillSubjects(db: Db): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`insert into subjects
      (tenant_id, id, lookup, wrapped_key, salt, commitment, created_at, erased_at)
    select case when i % 2 = 0 then ${tenants[0]}::uuid else ${tenants[1]}::uuid end,
      gen_random_uuid(), md5(i::text) || md5((i + 1)::text), repeat(md5(i::text), 2) || 'aa==',
      left(md5((i + 2)::text), 24), left(md5((i + 3)::text), 43) || '=',
      '2026-12-01T00:00:00.000Z', null
    from generate_series(0, ${leaves - 1}) as i`.execute(db);
}

/**
 * `cookie_decisions` and `subjects` as 0.5.0 kept them: a choice a new visitor, with the visitor's
 * subject, over ten websites of two tenants, in time order (ids as random UUIDs, in no key's order).
 */
async function fillChoices(db: Db): Promise<void> {
  if (!isPostgres(db)) return; // 0055 changes nothing on SQLite: nothing to fill.
  await sql`create temporary table bench_visitors as
    select i, gen_random_uuid()::text as subject_id,
      case when i % 2 = 0 then ${tenants[0]} else ${tenants[1]} end as tenant_id,
      'system-' || (i % 10) as system_id
    from generate_series(0, ${leaves - 1}) as i`.execute(db);
  await sql`insert into subjects
      (tenant_id, id, lookup, wrapped_key, salt, commitment, created_at, erased_at)
    select tenant_id, subject_id, md5(subject_id) || md5(i::text), repeat(md5(subject_id), 2),
      left(md5(i::text), 24), left(md5(subject_id), 44), '2026-12-01T00:00:00.000Z', null
    from bench_visitors`.execute(db);
  await sql`insert into cookie_decisions (tenant_id, id, system_id, configuration_id,
      configuration_version, content_sha256, subject_id, event_id, method, categories, locale,
      origin, region, variant, customer_subject_id, customer, personal, evidence_salt, decided_at)
    select tenant_id, gen_random_uuid()::text, system_id, 'configuration-' || (i % 10), 1,
      md5('content') || md5('content'), subject_id, gen_random_uuid()::text, 'accept-all',
      '{"necessary":true,"analytics":true}', 'th', 'https://shop.example', 'TH', null, null, null,
      repeat(md5(i::text), 4), left(md5(subject_id), 24),
      to_char(timestamp '2026-01-01' + i * interval '10 ms', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
    from bench_visitors`.execute(db);
  await sql`drop table bench_visitors`.execute(db);
}

/**
 * `channel_changes` and `partner_block_changes` as 0.5.0 kept them: as many changes of each as
 * there are records, two a customer (blocked, then allowed again), over two tenants, in time
 * order (ids as random UUIDs, in no key's order).
 */
async function fillControlChanges(db: Db): Promise<void> {
  if (!isPostgres(db)) return; // 0056 changes nothing on SQLite: nothing to fill.
  await sql`create temporary table bench_changes as
    select i, gen_random_uuid()::text as id, c.subject_id, c.decision_id, c.tenant_id,
      to_char(timestamp '2026-01-01' + i * interval '10 ms', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
        as changed_at
    from generate_series(0, ${leaves - 1}) as i
    join lateral (select md5('s' || (i / 2))::uuid::text as subject_id,
      md5('d' || (i / 2))::uuid::text as decision_id,
      case when (i / 2) % 2 = 0 then ${tenants[0]} else ${tenants[1]} end as tenant_id) as c on true`.execute(
    db,
  );
  const common = sql`tenant_id, id, subject_id, 1 - i % 2, 'api-key', null, null,
    repeat(md5(id), 4), left(md5(id), 24), changed_at`;
  const columns = sql`tenant_id, id, subject_id, blocked, api_key_id, user_id, idempotency_key,
    personal, evidence_salt, changed_at`;
  await sql`insert into channel_changes (${columns}, product_id, product_code, channel)
    select ${common}, 'product-1', 'savings', 'sms' from bench_changes`.execute(db);
  await sql`insert into partner_block_changes (${columns}, decision_id, partner_code)
    select ${common}, decision_id, 'insurer' from bench_changes`.execute(db);
  await sql`drop table bench_changes`.execute(db);
}

/**
 * A store of decisions as 0.6.0 keeps it, its ids text: two decisions a customer (one on each of a
 * template's two versions), each customer's subject and states, every decision's entry in the
 * tenant's log, in time order (ids as random UUIDs, in no key's order).
 */
async function fillDecisions(db: Db): Promise<void> {
  if (!isPostgres(db)) return; // 0058 changes nothing on SQLite: nothing to fill.
  const [tenant] = tenants;
  const template = '0190e8a0-0000-7000-8000-00000000c001';
  const versions = ['0190e8a0-0000-7000-8000-00000000c101', '0190e8a0-0000-7000-8000-00000000c102'];
  const apiKey = '0190e8a0-0000-7000-8000-00000000c201';
  await sql`create temporary table bench_decisions as
    select c.i * 2 + k as n, c.subject_id, gen_random_uuid()::text as id, k,
      to_char(timestamp '2026-01-01' + (c.i * 2 + k) * interval '10 ms',
        'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as decided_at
    from (select i, gen_random_uuid()::text as subject_id
      from generate_series(0, ${leaves / 2 - 1}) as i) as c
    cross join generate_series(0, 1) as k`.execute(db);
  await sql`insert into subjects (tenant_id, id, lookup, wrapped_key, salt, commitment, created_at)
    select ${tenant}, subject_id, md5(subject_id) || md5(id), repeat(md5(subject_id), 2),
      left(md5(id), 24), left(md5(subject_id), 44), decided_at
    from bench_decisions where k = 0`.execute(db);
  await sql`insert into decisions (tenant_id, id, subject_id, template_id, consent_version_id,
      version, decision, seq, decided_at, api_key_id, content_sha256, idempotency_key,
      evidence_salt, personal)
    select ${tenant}, id, subject_id, ${template},
      case when k = 0 then ${versions[0]} else ${versions[1]} end, k + 1, 'given', k + 1,
      decided_at, ${apiKey}, md5('content') || md5('content'), null, left(md5(id), 24),
      repeat(md5(id), 4)
    from bench_decisions order by n`.execute(db);
  await sql`insert into customer_version_states (tenant_id, subject_id, consent_version_id,
      last_decision_id, last_decision, last_decided_at)
    select ${tenant}, subject_id, case when k = 0 then ${versions[0]} else ${versions[1]} end, id,
      'given', decided_at
    from bench_decisions`.execute(db);
  await sql`insert into customer_template_states (tenant_id, subject_id, template_id,
      decision_count, last_decision_id, last_decision, last_consent_version_id, last_decided_at)
    select ${tenant}, subject_id, ${template}, 2, id, 'given', ${versions[1]}, decided_at
    from bench_decisions where k = 1`.execute(db);
  await sql`insert into tlog_entries (log_id, idx, record_id, leaf, integrated_at)
    select ${tenant}, n, id, md5(id) || md5(subject_id), decided_at
    from bench_decisions order by n`.execute(db);
  await sql`drop table bench_decisions`.execute(db);
}

/**
 * Decisions as 0.7.0 keeps them, each with its copy of the text's hash: two a customer (one on
 * each of a template's two versions), in time order, ids random (PostgreSQL's `uuid` since 0058).
 */
async function fillDecisionHashes(db: Db): Promise<void> {
  const [tenant] = tenants;
  const template = '0190e8a0-0000-7000-8000-00000000c001';
  const versions = ['0190e8a0-0000-7000-8000-00000000c101', '0190e8a0-0000-7000-8000-00000000c102'];
  const apiKey = '0190e8a0-0000-7000-8000-00000000c201';
  if (isPostgres(db)) {
    await sql`insert into decisions (tenant_id, id, subject_id, template_id, consent_version_id,
        version, decision, seq, decided_at, api_key_id, content_sha256, idempotency_key,
        evidence_salt, personal)
      select ${tenant}::uuid, gen_random_uuid(), c.subject_id, ${template}::uuid,
        case when k = 0 then ${versions[0]}::uuid else ${versions[1]}::uuid end, k + 1, 'given',
        k + 1, to_char(timestamp '2026-01-01' + (c.i * 2 + k) * interval '10 ms',
          'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), ${apiKey}::uuid, md5('content') || md5('content'),
        null, left(md5(c.subject_id::text || k), 24), repeat(md5(c.subject_id::text || k), 4)
      from (select i, gen_random_uuid() as subject_id
        from generate_series(0, ${leaves / 2 - 1}) as i) as c
      cross join generate_series(0, 1) as k
      order by c.i, k`.execute(db);
    return;
  }
  await sql`with recursive n(i) as (select 0 union all select i + 1 from n where i < ${leaves - 1})
    insert into decisions (tenant_id, id, subject_id, template_id, consent_version_id, version,
      decision, seq, decided_at, api_key_id, content_sha256, idempotency_key, evidence_salt,
      personal)
    select ${tenant}, lower(hex(randomblob(16))), 'subject-' || (i / 2), ${template},
      case when i % 2 = 0 then ${versions[0]} else ${versions[1]} end, i % 2 + 1, 'given',
      i % 2 + 1, strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01', '+' || (i / 100.0) || ' seconds'),
      ${apiKey}, lower(hex(randomblob(32))), null, hex(randomblob(12)), hex(randomblob(70))
    from n`.execute(db);
}

/**
 * Decisions as 0.9.0 keeps them, their times ISO text, with the customers' states: two a
 * customer (one on each of a template's two versions), in time order, ids random. PostgreSQL
 * only: 0061 changes nothing on SQLite.
 */
async function fillDecisionTimes(db: Db): Promise<void> {
  if (!isPostgres(db)) return;
  const [tenant] = tenants;
  const template = '0190e8a0-0000-7000-8000-00000000c001';
  const versions = ['0190e8a0-0000-7000-8000-00000000c101', '0190e8a0-0000-7000-8000-00000000c102'];
  const apiKey = '0190e8a0-0000-7000-8000-00000000c201';
  await sql`insert into decisions (tenant_id, id, subject_id, template_id, consent_version_id,
      version, decision, seq, decided_at, api_key_id, idempotency_key, evidence_salt, personal)
    select ${tenant}::uuid, gen_random_uuid(), c.subject_id, ${template}::uuid,
      case when k = 0 then ${versions[0]}::uuid else ${versions[1]}::uuid end, k + 1, 'given',
      k + 1, to_char(timestamp '2026-01-01' + (c.i * 2 + k) * interval '10 ms',
        'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), ${apiKey}::uuid, null,
      left(md5(c.subject_id::text || k), 24), repeat(md5(c.subject_id::text || k), 4)
    from (select i, gen_random_uuid() as subject_id
      from generate_series(0, ${leaves / 2 - 1}) as i) as c
    cross join generate_series(0, 1) as k
    order by c.i, k`.execute(db);
  await sql`insert into customer_version_states (tenant_id, subject_id, consent_version_id,
      last_decision_id, last_decision, last_decided_at)
    select tenant_id, subject_id, consent_version_id, id, decision, decided_at
    from decisions order by subject_id, consent_version_id`.execute(db);
  await sql`insert into customer_template_states (tenant_id, subject_id, template_id,
      decision_count, last_decision_id, last_decision, last_consent_version_id, last_decided_at)
    select tenant_id, subject_id, template_id, 2, id, decision, consent_version_id, decided_at
    from decisions where seq = 2 order by subject_id`.execute(db);
}

/**
 * A customer's states as 0.12.0 keeps them, keyed by the tenant: a customer decided on both
 * versions of a template (two states on a version, one on the template), ids random. PostgreSQL
 * only: 0064 changes nothing on SQLite.
 */
async function fillStates(db: Db): Promise<void> {
  if (!isPostgres(db)) return;
  const [tenant] = tenants;
  const template = '0190e8a0-0000-7000-8000-00000000c001';
  const versions = ['0190e8a0-0000-7000-8000-00000000c101', '0190e8a0-0000-7000-8000-00000000c102'];
  // The same customer in both tables: their subject id made from their number.
  const customers = sql`(select i, md5('subject' || i)::uuid as subject_id
    from generate_series(0, ${leaves / 2 - 1}) as i) as c`;
  await sql`insert into customer_version_states (tenant_id, subject_id, consent_version_id,
      last_decision_id, last_decision, last_decided_at)
    select ${tenant}::uuid, c.subject_id,
      case when k = 0 then ${versions[0]}::uuid else ${versions[1]}::uuid end, gen_random_uuid(),
      'given', timestamptz '2026-01-01 00:00:00+00' + (c.i * 2 + k) * interval '10 ms'
    from ${customers} cross join generate_series(0, 1) as k
    order by c.i, k`.execute(db);
  await sql`insert into customer_template_states (tenant_id, subject_id, template_id,
      decision_count, last_decision_id, last_decision, last_consent_version_id, last_decided_at)
    select ${tenant}::uuid, c.subject_id, ${template}::uuid, 2, gen_random_uuid(), 'given',
      ${versions[1]}::uuid, timestamptz '2026-01-01 00:00:00+00' + (c.i * 2 + 1) * interval '10 ms'
    from ${customers} order by c.i`.execute(db);
}

/**
 * The control kinds' states as 0.13.0 keeps them, keyed by the tenant: a customer's two channels
 * of a product, and a partner blocked on each of their two decisions, ids random. PostgreSQL
 * only: 0065 changes nothing on SQLite.
 */
async function fillControlStates(db: Db): Promise<void> {
  if (!isPostgres(db)) return;
  const [tenant] = tenants;
  const product = '0190e8a0-0000-7000-8000-00000000e001';
  const records = sql`(select i, md5('subject' || (i / 2))::uuid as subject_id,
      gen_random_uuid() as change_id,
      to_char(timestamp '2026-01-01' + i * interval '10 ms', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
        as since
    from generate_series(0, ${leaves - 1}) as i) as r`;
  await sql`insert into channel_states (tenant_id, subject_id, product_id, channel, blocked,
      change_id, since)
    select ${tenant}::uuid, r.subject_id, ${product}::uuid,
      case when r.i % 2 = 0 then 'email' else 'sms' end, 1, r.change_id, r.since
    from ${records} order by r.i`.execute(db);
  await sql`insert into partner_block_states (tenant_id, decision_id, partner_code, subject_id,
      blocked, change_id, since)
    select ${tenant}::uuid, gen_random_uuid(), 'insurer', r.subject_id, 1, r.change_id, r.since
    from ${records} order by r.i`.execute(db);
}

/**
 * Decisions and their customers as 0.14.0 keeps them on PostgreSQL, two decisions a customer:
 * the sealed columns of the sizes the service writes (a decision's personal fields 112 bytes,
 * its salt 16; a customer's wrapped key 60, salt 16, commitment 32), as base64 text before 0066
 * or as their bytes after it (for 0067). PostgreSQL only: neither changes anything on SQLite.
 */
async function fillCustomersAndDecisions(db: Db, sealedAs: 'text' | 'bytea'): Promise<void> {
  if (!isPostgres(db)) return;
  const [tenant] = tenants;
  const template = '0190e8a0-0000-7000-8000-00000000c001';
  const versions = ['0190e8a0-0000-7000-8000-00000000c101', '0190e8a0-0000-7000-8000-00000000c102'];
  const apiKey = '0190e8a0-0000-7000-8000-00000000c201';
  const base64 = (hex: RawBuilder<unknown>) =>
    sealedAs === 'bytea'
      ? sql`decode(${hex}, 'hex')`
      : sql`replace(encode(decode(${hex}, 'hex'), 'base64'), E'\n', '')`;
  const customers = sql`(select i, md5('subject' || i)::uuid as subject_id
    from generate_series(0, ${leaves / 2 - 1}) as i) as c`;
  await sql`insert into subjects
      (tenant_id, id, lookup, wrapped_key, salt, commitment, created_at, erased_at)
    select ${tenant}::uuid, c.subject_id, decode(md5('l' || c.i) || md5('k' || c.i), 'hex'),
      ${base64(sql`repeat(md5('w' || c.i), 4) || left(md5('x' || c.i), 24)`)},
      ${base64(sql`md5('s' || c.i)`)}, ${base64(sql`md5('c' || c.i) || md5('d' || c.i)`)},
      '2026-12-01T00:00:00.000Z', null
    from ${customers} order by c.i`.execute(db);
  await sql`insert into decisions (tenant_id, id, subject_id, template_id, consent_version_id,
      version, decision, seq, decided_at, api_key_id, idempotency_key, evidence_salt, personal)
    select ${tenant}::uuid, gen_random_uuid(), c.subject_id, ${template}::uuid,
      case when k = 0 then ${versions[0]}::uuid else ${versions[1]}::uuid end, k + 1, 'given',
      k + 1, timestamptz '2026-01-01 00:00:00+00' + (c.i * 2 + k) * interval '10 ms',
      ${apiKey}::uuid, null, ${base64(sql`md5('e' || c.i || k)`)},
      ${base64(sql`repeat(md5('p' || c.i || k), 7)`)}
    from ${customers} cross join generate_series(0, 1) as k
    order by c.i, k`.execute(db);
}

/** An SQLite expression of a UUID of the service's form, the `n`th of the series `prefix` names. */
function sqliteUuid(prefix: string, n: RawBuilder<unknown>): RawBuilder<string> {
  return sql`printf('0190e8a0-%04x-7${sql.raw(prefix)}-8000-%012x', ${n} / 65536 % 65536, ${n})`;
}

/**
 * Customers and their decisions as 0.18.0 keeps them on SQLite, as `fillCustomersAndDecisions`
 * fills PostgreSQL's: ids as text, UUIDv7-like and rising as the service makes them; sealed
 * values as text of their base64 length; times as ISO text. Nothing on PostgreSQL (0072 changes
 * nothing there).
 */
async function fillSqliteCustomersAndDecisions(db: Db): Promise<void> {
  if (isPostgres(db)) return;
  const [tenant] = tenants;
  const template = '0190e8a0-0000-7000-8000-00000000c001';
  const versions = ['0190e8a0-0000-7000-8000-00000000c101', '0190e8a0-0000-7000-8000-00000000c102'];
  const apiKey = '0190e8a0-0000-7000-8000-00000000c201';
  const text = (chars: number) =>
    sql`substr(hex(randomblob(${Math.ceil(chars / 2)})), 1, ${chars})`;
  const customers = sql`with recursive c(i) as (select 0 union all select i + 1 from c
    where i < ${leaves / 2 - 1})`;
  await sql`${customers} insert into subjects
      (tenant_id, id, lookup, wrapped_key, salt, commitment, created_at, erased_at)
    select ${tenant}, ${sqliteUuid('001', sql`i`)}, lower(hex(randomblob(32))), ${text(120)},
      ${text(24)}, ${text(44)}, '2026-12-01T00:00:00.000Z', null
    from c`.execute(db);
  await sql`${customers}, k(k) as (select 0 union all select 1)
    insert into decisions (tenant_id, id, subject_id, template_id, consent_version_id,
      version, decision, seq, decided_at, api_key_id, idempotency_key, evidence_salt, personal)
    select ${tenant}, ${sqliteUuid('002', sql`(i * 2 + k)`)}, ${sqliteUuid('001', sql`i`)}, ${template},
      case when k = 0 then ${versions[0]} else ${versions[1]} end, k + 1, 'given', k + 1,
      strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01', '+' || ((i * 2 + k) / 100.0) || ' seconds'),
      ${apiKey}, null, ${text(24)}, ${text(152)}
    from c cross join k order by i, k`.execute(db);
}

/**
 * SQLite's customers' states as 0.19.0 keeps them, keyed by the tenant, as `fillStates` makes
 * PostgreSQL's: a state on a version a record (two a customer), a state on a template a customer,
 * ids of the service's form. SQLite only: 0073 changes nothing on PostgreSQL.
 */
async function fillSqliteStates(db: Db, named: 'tenant' | 'no tenant' = 'tenant'): Promise<void> {
  if (isPostgres(db)) return;
  const [tenant] = tenants;
  // Before 0073 a state names its tenant first; since, it does not.
  const tenantColumn = sql.raw(named === 'tenant' ? 'tenant_id, ' : '');
  const tenantValue = named === 'tenant' ? sql`${tenant}, ` : sql``;
  const template = '0190e8a0-0000-7000-8000-00000000c001';
  const versions = ['0190e8a0-0000-7000-8000-00000000c101', '0190e8a0-0000-7000-8000-00000000c102'];
  const time = (n: RawBuilder<unknown>) =>
    sql`strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01', '+' || (${n} / 100.0) || ' seconds')`;
  const customers = sql`with recursive c(i) as (select 0 union all select i + 1 from c
    where i < ${leaves / 2 - 1})`;
  await sql`${customers}, k(k) as (select 0 union all select 1)
    insert into customer_version_states (${tenantColumn}subject_id, consent_version_id,
      last_decision_id, last_decision, last_decided_at)
    select ${tenantValue}${sqliteUuid('001', sql`i`)},
      case when k = 0 then ${versions[0]} else ${versions[1]} end,
      ${sqliteUuid('002', sql`(i * 2 + k)`)}, 'given', ${time(sql`(i * 2 + k)`)}
    from c cross join k order by i, k`.execute(db);
  await sql`${customers} insert into customer_template_states (${tenantColumn}subject_id, template_id,
      decision_count, last_decision_id, last_decision, last_consent_version_id, last_decided_at)
    select ${tenantValue}${sqliteUuid('001', sql`i`)}, ${template}, 2, ${sqliteUuid('002', sql`(i * 2 + 1)`)},
      'given', ${versions[1]}, ${time(sql`(i * 2 + 1)`)}
    from c order by i`.execute(db);
}

/**
 * Cookie choices as 0.8.0 keeps them, each with its copy of the configuration's hash: each a new
 * visitor's (the visitors' subjects are not needed here), ids random (PostgreSQL's `uuid`).
 */
async function fillChoiceHashes(db: Db): Promise<void> {
  const [tenant] = tenants;
  const system = '0190e8a0-0000-7000-8000-00000000d001';
  const configuration = '0190e8a0-0000-7000-8000-00000000d101';
  if (isPostgres(db)) {
    await sql`insert into cookie_decisions (tenant_id, id, system_id, configuration_id,
        configuration_version, content_sha256, subject_id, event_id, method, categories, locale,
        origin, region, variant, customer_subject_id, customer, personal, evidence_salt,
        decided_at)
      select ${tenant}::uuid, gen_random_uuid(), ${system}::uuid, ${configuration}::uuid, 1,
        md5('content') || md5('content'), gen_random_uuid(), gen_random_uuid()::text,
        'accept-all', '{"necessary":true,"analytics":true}', 'th', 'https://shop.example', 'TH',
        null, null, null, repeat(md5(i::text), 4), left(md5(i::text), 24),
        to_char(timestamp '2026-01-01' + i * interval '10 ms', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
      from generate_series(0, ${leaves - 1}) as i`.execute(db);
    return;
  }
  await sql`with recursive n(i) as (select 0 union all select i + 1 from n where i < ${leaves - 1})
    insert into cookie_decisions (tenant_id, id, system_id, configuration_id,
      configuration_version, content_sha256, subject_id, event_id, method, categories, locale,
      origin, region, variant, customer_subject_id, customer, personal, evidence_salt,
      decided_at)
    select ${tenant}, lower(hex(randomblob(16))), ${system}, ${configuration}, 1,
      lower(hex(randomblob(32))), lower(hex(randomblob(16))), lower(hex(randomblob(16))),
      'accept-all', '{"necessary":true,"analytics":true}', 'th', 'https://shop.example', 'TH',
      null, null, null, hex(randomblob(70)), hex(randomblob(12)),
      strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01', '+' || (i / 100.0) || ' seconds')
    from n`.execute(db);
}

/** `count` for each table. */
async function eachOf(
  tables: readonly Table[],
  count: (table: Table) => Promise<number>,
): Promise<Record<string, number>> {
  const counted: Record<string, number> = {};
  for (const table of tables) counted[table] = await count(table);
  return counted;
}

async function rows(on: Db, table: Table): Promise<number> {
  const { n } = await on
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(n);
}

/** The table and its key on disk: `dbstat` on SQLite, `pg_total_relation_size` on PostgreSQL. */
async function bytes(on: Db, table: Table): Promise<number> {
  const query = isPostgres(on)
    ? sql<{ b: string }>`select pg_total_relation_size(${table}) as b`
    : sql<{ b: number }>`select sum(pgsize) as b from dbstat
        where name = ${table} or name in (select name from sqlite_master where tbl_name = ${table})`;
  return Number((await query.execute(on)).rows[0]?.b ?? 0);
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
