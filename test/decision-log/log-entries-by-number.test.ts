/**
 * The log's entries name their log by a number (`tlog_logs.no`) instead of its id, and SQLite
 * keeps their leaves as bytes (migration 0069). On a store as 0.16.0 leaves it, with two
 * tenants' sessions in it, the start of this release converts it: every entry kept under its
 * log's number, the logs numbered in the order they were made; the same reads answer the same
 * bytes, the receipts are served again and verify, the audit is clean, every decision keeps its
 * place in the log; the service records on, a new log taking the next number. A log partitioned
 * by time on PostgreSQL is converted partition by partition.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { timeTables } from '../../src/app/time-tables.js';
import { loadConfig } from '../../src/platform/config.js';
import { createDb, type Db } from '../../src/platform/db.js';
import { resolveLogKey } from '../../src/platform/log-key.js';
import { migrateToLatest } from '../../src/platform/migrate.js';
import { partitionByTime } from '../../src/platform/partitions.js';
import { findStoreSetting } from '../../src/platform/store-settings-repository.js';
import { findEvidencePageNewestFirst } from '../../src/records/evidence-repository.js';
import { expectSameRecords, reads, session } from '../helpers/api-session.js';
import { startTestApp, testDataKey } from '../helpers/app.js';
import { asBefore0069, columnsOf, migrateBefore } from '../helpers/schema-history.js';
import { postgresStore, stores, useBareStore } from '../helpers/stores.js';
import { existingStore } from '../helpers/uuid-ids.js';

const migration = '0069-log-entries-by-number';
const laterMigrations = [
  '0070-subject-times-timestamptz',
  '0071-states-without-tenant',
  '0072-sqlite-keys-without-tenant',
  '0073-sqlite-states-without-tenant',
  '0074-sqlite-binary-ids',
];

/** Each log's number, its entries and the largest of their leaves in bytes, oldest log first. */
async function numberedEntries(db: Db) {
  const { rows } = await sql<{ log_id: string; no: number; n: number | string; bytes: number }>`
    select l.log_id, l.no, count(e.idx) as n, max(length(e.leaf)) as bytes
    from tlog_logs as l left join tlog_entries as e on e.log_no = l.no
    group by l.log_id, l.no order by l.no`.execute(db);
  return rows.map((row) => ({ ...row, n: Number(row.n), no: Number(row.no) }));
}

/** Runs `act` on a handle of its own on the store. */
async function onStore<T>(databaseUrl: string, act: (db: Db) => Promise<T>): Promise<T> {
  const db = createDb(loadConfig({ DATABASE_URL: databaseUrl }));
  try {
    return await act(db);
  } finally {
    await db.destroy();
  }
}

describe.each(stores)('migration 0069, the log entries named by number, on $name', (store) => {
  it('converts a store with records as it starts; the same reads answer the same bytes, receipts verify, the audit is clean; it records on', async () => {
    const created = await store.createMigrated!();
    // The store as 0.16.0 leaves it: 0069 and the migration after it taken back, and recorded
    // as applied so that the test app, which migrates on its start, leaves it so while it
    // records.
    await onStore(created.databaseUrl, async (db) => {
      await asBefore0069(db);
      for (const name of [migration, ...laterMigrations]) {
        await sql`insert into kysely_migration (name, timestamp)
          values (${name}, ${new Date().toISOString()})`.execute(db);
      }
    });
    const before = await startTestApp(
      existingStore(created.databaseUrl, async () => {}, store.name),
    );
    const first = await session(before);
    const second = await session(before);
    const at = new Date().toISOString();
    const readsFirst = await reads(before, first, at);
    const readsSecond = await reads(before, second, at);
    const places = async (db: Db, tenantId: string) =>
      (await findEvidencePageNewestFirst(db, tenantId, {}, undefined, 100)).map((row) => [
        row.decision_id,
        row.log_index,
      ]);
    const placesBefore = await places(before.db, first.tenantId);
    expect(placesBefore.length).toBeGreaterThan(0);
    expect(placesBefore.every(([, index]) => index !== null)).toBe(true);
    expect(await resolveLogKey(before.db)).toBe('id');
    await before.close();
    // Counted once the app is closed: its log may append what it had queued until then.
    const counted = await onStore(created.databaseUrl, async (db) => {
      const { rows } = await sql<{ n: number | string }>`
        select count(*) as n from tlog_entries`.execute(db);
      await sql`delete from kysely_migration
        where name in (${sql.join([migration, ...laterMigrations])})`.execute(db);
      return rows;
    });

    // Started again: the start applies 0069 (and the migration after it).
    const after = await startTestApp(existingStore(created.databaseUrl, created.drop, store.name));
    try {
      expect(await columnsOf(after.db, 'tlog_entries')).toEqual([
        'log_no',
        'idx',
        'record_id',
        'leaf',
        'integrated_at',
      ]);
      expect(await resolveLogKey(after.db)).toBe('number');
      // 0069 raises it to 0.16.0, 0070 to 0.17.0, 0071 to 0.18.0, 0073 to 0.19.0.
      expect(await findStoreSetting(after.db, 'oldest_release')).toBe('0.21.0');
      // Both tenants' logs, numbered in the order they were made; no entry lost, each leaf its
      // 32 bytes.
      const logs = await numberedEntries(after.db);
      expect(logs.map((log) => [log.log_id, log.no])).toEqual([
        [first.tenantId, 1],
        [second.tenantId, 2],
      ]);
      expect(logs.reduce((sum, log) => sum + log.n, 0)).toBe(Number(counted[0]?.n));
      expect(logs.map((log) => log.bytes)).toEqual([32, 32]);

      await expectSameRecords(after, first, at, readsFirst);
      await expectSameRecords(after, second, at, readsSecond);
      expect(await places(after.db, first.tenantId)).toEqual(placesBefore);
      // It records on: a third tenant's log is made with the next number.
      const third = await session(after);
      expect(third.answers).toEqual(first.answers);
      expect(third.receipts).toEqual([true, true]);
      expect(third.audit).toMatchObject({ ok: true, findings: [] });
      const all = await numberedEntries(after.db);
      expect(all.map((log) => [log.log_id, log.no])).toEqual([
        [first.tenantId, 1],
        [second.tenantId, 2],
        [third.tenantId, 3],
      ]);
      expect(all.map((log) => log.bytes)).toEqual([32, 32, 32]);
    } finally {
      await after.close();
    }
  });
});

describe('migration 0069 on a PostgreSQL store whose log is partitioned by time', () => {
  const bare = useBareStore(postgresStore);

  it('converts every partition, its entries kept under their log’s number', async () => {
    const { db } = bare;
    await migrateBefore(db, '0069');
    const logId = '0190e8a0-0000-7000-8000-0000000000bb';
    await db
      .insertInto('tlog_logs')
      .values({
        log_id: logId,
        tenant_id: logId,
        origin: 'example.com/log',
        verifier_key: 'example.com/log+00000000+AA==',
        created_at: '2026-01-01T00:00:00.000Z',
      })
      .execute();
    const entries = Array.from({ length: 30 }, (_, idx) => ({
      log_id: logId,
      idx,
      record_id: crypto.randomUUID(),
      leaf: sql<string>`decode(${'ab'.repeat(32)}, 'hex')`,
      integrated_at: new Date(Date.UTC(2026, idx % 3, 1)).toISOString(),
    }));
    await db.insertInto('tlog_entries').values(entries).execute();
    const { tables } = await partitionByTime(db, timeTables(registry), 'month');
    expect(tables.map((table) => table.table)).toContain('tlog_entries');

    expect(await migrateToLatest(db, testDataKey)).toEqual([migration, ...laterMigrations]);
    const { rows } = await sql<{ log_no: number; record_id: string; partitions: number }>`
      select log_no, record_id,
        (select count(*)::int from pg_inherits
          where inhparent = 'tlog_entries'::regclass) as partitions
      from tlog_entries order by idx`.execute(db);
    expect(rows.map((row) => row.record_id)).toEqual(entries.map((entry) => entry.record_id));
    expect(new Set(rows.map((row) => row.log_no))).toEqual(new Set([1]));
    expect(rows[0]?.partitions).toBeGreaterThan(1);
  });
});
