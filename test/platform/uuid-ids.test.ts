/**
 * PostgreSQL's ids as `uuid` columns (16 bytes instead of 37 of text), which migration 0058 makes
 * them. The service runs on a store of each kind (`src/platform/id-type.ts`): one scripted session
 * of the public API answers byte for byte alike on both but for ids and times, its receipts
 * verify and the log's audit is clean. 0058 converts a store of text ids with its records in it:
 * the same reads answer the same bytes after it, earlier receipts are served again for the same
 * leaves; a store holding an id that is no UUID keeps its ids as text and says why; a store
 * partitioned by time is converted with its partitions; SQLite's store is left as it was.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { timeTables } from '../../src/app/time-tables.js';
import { loadConfig } from '../../src/platform/config.js';
import { createDb, type Db } from '../../src/platform/db.js';
import { holdsServiceId, resolveIdType } from '../../src/platform/id-type.js';
import { migrateToLatest } from '../../src/platform/migrate.js';
import { partitionByTime } from '../../src/platform/partitions.js';
import { prepared } from '../../src/platform/prepared.js';
import { findStoreSetting } from '../../src/platform/store-settings-repository.js';
import { expectSameRecords, reads, session } from '../helpers/api-session.js';
import { startTestApp, type TestApp, testDataKey } from '../helpers/app.js';
import { migrateBefore, sqliteSchema } from '../helpers/schema-history.js';
import { postgresStore, sqliteStore, useBareStore } from '../helpers/stores.js';
import { existingStore, postgresTextIdsStore } from '../helpers/uuid-ids.js';
import { createNotes } from '../record-kinds/note-kind/migration.js';

/**
 * The id columns that stay text: what a client, a provider or a standard names (a customer's
 * id, a cookie choice's event, a SCIM `externalId`, an OIDC client, a passkey's credential), a
 * role's id (`admin` and the like) and every `role_id`, an e-mail key's fingerprint.
 */
const textColumns = [
  'customer_id',
  'event_id',
  'external_id',
  'client_id',
  'credential_id',
  'email_key_id',
  'role_id',
  'roles.id',
];
const nilUuid = '00000000-0000-0000-0000-000000000000';

interface Column {
  table_name: string;
  column_name: string;
  data_type: string;
}

/** Every `id` and `…_id` column of the store's tables (partitions included) and its type. */
async function idColumns(db: Db): Promise<Column[]> {
  const { rows } = await sql<Column>`
    select table_name, column_name, data_type from information_schema.columns
    where table_schema = current_schema() and (column_name = 'id' or column_name like '%\\_id')
      and table_name not like 'kysely\\_%'
    order by table_name, column_name`.execute(db);
  return rows;
}

const keptText = (column: Column) =>
  textColumns.includes(column.column_name) ||
  textColumns.includes(`${column.table_name}.${column.column_name}`);

describe('PostgreSQL stores of text and of uuid ids', () => {
  let onText: TestApp;
  let onUuid: TestApp;
  beforeAll(async () => {
    onText = await startTestApp(postgresTextIdsStore);
    onUuid = await startTestApp(postgresStore);
  });
  afterAll(async () => {
    await onText?.close();
    await onUuid?.close();
  });

  it('a migrated store holds every id of the service as a 16-byte uuid, and the service reads the type from the store', async () => {
    const columns = await idColumns(onUuid.db);
    expect(columns.length).toBeGreaterThan(150);
    expect(columns.filter((column) => column.data_type !== 'uuid' && !keptText(column))).toEqual([
      { table_name: 'cookie_database', column_name: 'id', data_type: 'integer' },
    ]);
    expect(columns.filter(keptText).every((column) => column.data_type === 'text')).toBe(true);
    // The code's rule for a column's type (a kind's batch columns) says what 0058 made of it.
    const byRule = columns.filter(
      (c) => c.data_type !== 'integer' && !(c.table_name === 'roles' && c.column_name === 'id'),
    );
    expect(
      byRule.filter((c) => holdsServiceId(c.column_name) !== (c.data_type === 'uuid')),
    ).toEqual([]);
    const { rows: types } = await sql<{ data_type: string; n: number }>`
      select data_type, count(*)::int as n from information_schema.columns
      where table_schema = current_schema() and table_name in ('decisions', 'subjects', 'tlog_entries')
        and column_name in ('id', 'tenant_id', 'subject_id', 'log_id', 'record_id')
      group by data_type`.execute(onUuid.db);
    // tlog_entries names its log by number since 0069: its record_id is the one id it holds.
    expect(types).toEqual([{ data_type: 'uuid', n: 6 }]);
    expect(await resolveIdType(onUuid.db)).toBe('uuid');
    expect(await resolveIdType(onText.db)).toBe('text');
  });

  it('a new handle whose first statements start together reads the id type once, and each statement runs once', async () => {
    const statements: string[] = [];
    const db = createDb(loadConfig({ DATABASE_URL: onUuid.config.databaseUrl }), (event) => {
      if (event.level === 'query') statements.push(event.query.sql);
    });
    const byId = prepared((d, p: (name: 'id') => never) =>
      d.selectFrom('tenants').select('id').where('id', '=', p('id')),
    );
    try {
      const ids = Array.from({ length: 200 }, () => crypto.randomUUID());
      const found = await Promise.all(ids.map((id) => byId.first(db, { id })));
      expect(found.every((row) => row === undefined)).toBe(true);
      expect(statements.filter((text) => text.includes('information_schema'))).toHaveLength(1);
      expect(statements).toHaveLength(201);
    } finally {
      await db.destroy();
    }
  });

  it('statements waiting on a read of the id type that fails (its transaction had failed) read it on their own', async () => {
    const db = createDb(loadConfig({ DATABASE_URL: onUuid.config.databaseUrl }));
    try {
      await db.connection().execute(async (connection) => {
        await sql`begin`.execute(connection);
        await expect(sql`select 1 / 0`.execute(connection)).rejects.toThrow(/division by zero/);
        // The first read runs in the failed transaction; the second waits on it.
        const first = resolveIdType(connection);
        const second = resolveIdType(db);
        await expect(first).rejects.toThrow(/current transaction is aborted/);
        expect(await second).toBe('uuid');
        await sql`rollback`.execute(connection);
      });
    } finally {
      await db.destroy();
    }
  });

  it('a scripted session answers byte for byte alike on text and uuid ids; receipts verify, the audit is clean', async () => {
    const text = await session(onText);
    const binary = await session(onUuid);
    expect(binary.answers).toEqual(text.answers);
    // The session reached what it meant to, on both.
    expect(text.answers.map((line) => line.slice(0, 3))).toEqual([
      '200', // latest
      '200', // pending
      '201', // given on 1.0
      '201', // given on 1.1, its id in upper case
      '200', // the same again: no re-consent
      '409', // reject: no re-consent
      '409', // nothing to withdraw
      '201',
      '400', // a version id that is no UUID
      '404', // an unknown version
      '200',
      '404',
      '200', // the history's first page
      '200', // its next page by the cursor
      '200', // as of now
      '201', // a channel blocked
      '200',
      '200', // bulk status
      '200', // the history with the controls
      '400', // a receipt of an id that is no UUID
      '404', // a receipt of an unknown decision
      '201', // a cookie choice
      '200', // its retry
    ]);
    expect(binary.receipts).toEqual([true, true]);
    expect(text.receipts).toEqual([true, true]);
    expect(binary.audit).toMatchObject({ ok: true, findings: [] });
    expect(text.audit).toMatchObject({ ok: true, findings: [] });
  });
});

const foreignKeys = async (db: Db) =>
  (
    await sql<{ tbl: string; name: string; def: string }>`
      select conrelid::regclass::text as tbl, conname as name, pg_get_constraintdef(oid) as def
      from pg_constraint where contype = 'f' order by 1, 2`.execute(db)
  ).rows;

describe('migration 0058 on a PostgreSQL store of text ids with records in it', () => {
  it('makes every id but the listed ones a uuid; the same reads answer the same bytes, the receipts are of the same leaves and verify, the audit is clean', async () => {
    const created = await postgresTextIdsStore.createMigrated!();
    const old = await startTestApp(existingStore(created.databaseUrl));
    const before = await session(old);
    const at = new Date().toISOString();
    const readsBefore = await reads(old, before, at);
    // A release before 0.6.0 said "no id" as empty text where the lapse pass had looked at none.
    const { id: templateId } = await old.db
      .selectFrom('templates')
      .select('id')
      .where('tenant_id', '=', before.tenantId)
      .executeTakeFirstOrThrow();
    await sql`insert into lapse_progress (tenant_id, template_id, decided_through, through_id)
      values (${before.tenantId}, ${templateId}, ${at}, '')`.execute(old.db);
    const columnsBefore = await idColumns(old.db);
    const keysBefore = await foreignKeys(old.db);
    expect(columnsBefore.filter((c) => c.data_type === 'uuid')).toEqual([]);
    // Stopped, and started again as the release with 0058 (which its start applies).
    await old.close();
    const handle = createDb(loadConfig({ DATABASE_URL: created.databaseUrl }));
    // 0058 with the migration after it, which runs again as it did.
    await sql`delete from kysely_migration where name >= '0058'`.execute(handle);
    await handle.destroy();
    const next = await startTestApp(existingStore(created.databaseUrl, created.drop));
    try {
      const columnsAfter = await idColumns(next.db);
      expect(columnsAfter.map((c) => [c.table_name, c.column_name])).toEqual(
        columnsBefore.map((c) => [c.table_name, c.column_name]),
      );
      expect(columnsAfter.filter((c) => c.data_type === 'text')).toEqual(
        columnsBefore.filter(keptText),
      );
      expect(columnsAfter.filter((c) => c.data_type === 'uuid')).toHaveLength(
        columnsBefore.filter((c) => c.data_type === 'text' && !keptText(c)).length,
      );
      expect(await foreignKeys(next.db)).toEqual(keysBefore);
      expect(await resolveIdType(next.db)).toBe('uuid');
      const { rows: progress } = await sql<{ through_id: string }>`
        select through_id from lapse_progress where tenant_id = ${before.tenantId}`.execute(
        next.db,
      );
      expect(progress).toEqual([{ through_id: nilUuid }]);

      await expectSameRecords(next, before, at, readsBefore);
      // And it records on: the session again, on the converted store.
      expect((await session(next)).answers).toEqual(before.answers);
    } finally {
      await next.close();
    }
  });
});

describe.each([
  ['an id that is no UUID', 'legacy-log'],
  ['a UUID in upper case', '0190E8A0-0000-7000-8000-00000000000A'],
])('migration 0058 on a PostgreSQL store holding %s', (_, logId) => {
  const bare = useBareStore(postgresStore);

  it('keeps every id as text, and the store says which id stopped it', async () => {
    const { db } = bare;
    await migrateBefore(db, '0058');
    const keys = await foreignKeys(db);
    await sql`insert into tlog_logs (log_id, tenant_id, origin, verifier_key, created_at)
      values (${logId}, ${crypto.randomUUID()}, 'consent.test/consent-log', 'key', '2026-01-01T00:00:00.000Z')`.execute(
      db,
    );
    expect(await migrateToLatest(db, testDataKey)).toContain('0058-uuid-ids');
    expect((await idColumns(db)).filter((c) => c.data_type === 'uuid')).toEqual([]);
    expect(await foreignKeys(db)).toEqual(keys);
    expect(await findStoreSetting(db, 'ids_kept_as_text')).toMatch(
      new RegExp(`^tlog_logs holds an id that is no UUID: .*${logId}`),
    );
    // 0058 raises it to 0.6.0, 0059 to 0066 after it to 0.7.0, 0.8.0, 0.9.0, 0.10.0, 0.11.0,
    // 0.12.0, 0.13.0 and 0.14.0, 0068 to 0.15.0, 0069 to 0.16.0, 0070 to
    // 0.17.0, 0071 to 0.18.0 and 0073 to 0.19.0.
    expect(await findStoreSetting(db, 'oldest_release')).toBe('0.21.0');
    expect(await resolveIdType(db)).toBe('text');
    const { rows } = await sql`select log_id from tlog_logs`.execute(db);
    expect(rows).toEqual([{ log_id: logId }]);
  });
});

describe('a kind’s migration after 0058, on a handle that had read the ids as text', () => {
  const bare = useBareStore(postgresStore);

  it('makes its tables with uuid ids: the id type is read again after each migration', async () => {
    const { db } = bare;
    await migrateBefore(db, '0058');
    expect(await resolveIdType(db)).toBe('text');
    await migrateToLatest(db, testDataKey, { '9000-test-notes': createNotes });
    const { rows } = await sql<{ column_name: string; data_type: string }>`
      select column_name, data_type from information_schema.columns
      where table_schema = current_schema() and table_name = 'notes'
        and column_name in ('tenant_id', 'id', 'subject_id', 'api_key_id')
      order by column_name`.execute(db);
    expect(rows).toEqual(
      ['api_key_id', 'id', 'subject_id', 'tenant_id'].map((column_name) => ({
        column_name,
        data_type: 'uuid',
      })),
    );
    expect(await resolveIdType(db)).toBe('uuid');
  });
});

describe('migration 0058 on a PostgreSQL store partitioned by time', () => {
  const bare = useBareStore(postgresStore);

  it('converts the partitioned tables with their partitions, their rows kept', async () => {
    const { db } = bare;
    await migrateBefore(db, '0058');
    const entries = Array.from({ length: 40 }, (_, idx) => ({
      log_id: '0190e8a0-0000-7000-8000-0000000000aa',
      idx,
      record_id: crypto.randomUUID(),
      leaf: 'ab'.repeat(32),
      integrated_at: new Date(Date.UTC(2026, idx % 3, 1)).toISOString(),
    }));
    await db.insertInto('tlog_entries').values(entries).execute();
    await db
      .insertInto('tlog_logs')
      .values({
        log_id: '0190e8a0-0000-7000-8000-0000000000aa',
        tenant_id: '0190e8a0-0000-7000-8000-0000000000aa',
        origin: 'example.com/log',
        verifier_key: 'example.com/log+00000000+AA==',
        created_at: '2026-01-01T00:00:00.000Z',
      })
      .execute();
    const { tables } = await partitionByTime(db, timeTables(registry), 'month');
    expect(tables.length).toBeGreaterThan(0);

    await migrateToLatest(db, testDataKey);

    const columns = await idColumns(db);
    const partitions = columns.filter((c) => /_p?\d{4}/.test(c.table_name));
    expect(partitions.length).toBeGreaterThan(0);
    expect(columns.filter((c) => c.data_type !== 'uuid' && !keptText(c))).toEqual([
      { table_name: 'cookie_database', column_name: 'id', data_type: 'integer' },
    ]);
    const { rows } = await sql<{ record_id: string }>`
      select record_id from tlog_entries order by idx`.execute(db);
    expect(rows.map((row) => row.record_id)).toEqual(entries.map((e) => e.record_id));
  });
});

describe('migration 0058 on SQLite', () => {
  const bare = useBareStore(sqliteStore);

  it('leaves the schema as it was, and raises the oldest release', async () => {
    const { db } = bare;
    await migrateBefore(db, '0058');
    const schema = () => sqliteSchema(db);
    const before = await schema();
    await migrateBefore(db, '0059');
    expect(await schema()).toEqual(before);
    // Applied the service's way, with the migration after it, which raises it further.
    await sql`delete from kysely_migration where name = '0058-uuid-ids'`.execute(db);
    expect(await migrateToLatest(db, testDataKey)).toEqual([
      '0058-uuid-ids',
      '0059-decision-content-hash-optional',
      '0060-cookie-choice-content-hash-optional',
      '0061-decision-times-timestamptz',
      '0062-log-entries-binary',
      '0063-subject-lookups-binary',
      '0064-state-keys-without-tenant',
      '0065-control-state-keys-without-tenant',
      '0066-sealed-columns-binary',
      '0067-customer-time-key-without-id',
      '0068-log-nodes-from-level-6',
      '0069-log-entries-by-number',
      '0070-subject-times-timestamptz',
      '0071-states-without-tenant',
      '0072-sqlite-keys-without-tenant',
      '0073-sqlite-states-without-tenant',
      '0074-sqlite-binary-ids',
    ]);
    expect(await findStoreSetting(db, 'oldest_release')).toBe('0.21.0');
  });
});
