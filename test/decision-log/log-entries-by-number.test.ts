/**
 * The log's entries name their log by a number (`tlog_logs.no`) instead of its id, and SQLite
 * keeps their leaves as bytes (migration 0069). The service runs on a store of either form
 * (`LogKey`, src/platform/log-key.ts): on a store with a session's records in it, converted by
 * 0069, the same reads answer the same bytes, the receipts are served again and verify, the audit
 * is clean, every decision keeps its place in the log, and the service records on: new logs take
 * the next number, every receipt verifies.
 */
import { type Kysely, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/platform/config.js';
import { createDb, type Db, isPostgres } from '../../src/platform/db.js';
import { resolveLogKey } from '../../src/platform/log-key.js';
import * as logEntriesByNumber from '../../src/platform/migrations/0069-log-entries-by-number.js';
import { findEvidencePageNewestFirst } from '../../src/records/evidence-repository.js';
import { expectSameRecords, reads, session } from '../helpers/api-session.js';
import { startTestApp } from '../helpers/app.js';
import { stores } from '../helpers/stores.js';
import { existingStore } from '../helpers/uuid-ids.js';

/** The columns of `tlog_entries` and `tlog_logs`, in order, from the store's catalogue. */
async function columnsOf(db: Db, table: string): Promise<string[]> {
  const { rows } = isPostgres(db)
    ? await sql<{ name: string }>`select column_name::text as name
        from information_schema.columns
        where table_schema = current_schema() and table_name = ${table}
        order by ordinal_position`.execute(db)
    : await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(db);
  return rows.map((row) => row.name);
}

/** Each log's number and entries, by the log's id. */
async function numberedEntries(db: Db) {
  const { rows } = await sql<{ log_id: string; no: number; n: number | string; bytes: number }>`
    select l.log_id, l.no, count(e.idx) as n, max(length(e.leaf)) as bytes
    from tlog_logs as l left join tlog_entries as e on e.log_no = l.no
    group by l.log_id, l.no order by l.no`.execute(db);
  return rows.map((row) => ({ ...row, n: Number(row.n), no: Number(row.no) }));
}

describe.each(stores)('the log entries named by number, on $name', (store) => {
  it('0069 converts a store with records; the same reads answer the same bytes, receipts verify, the audit is clean; it records on', async () => {
    const created = await store.createMigrated!();
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
    const { rows: counted } = await sql<{ n: number | string }>`
      select count(*) as n from tlog_entries`.execute(before.db);
    await before.close();

    const handle = createDb(loadConfig({ DATABASE_URL: created.databaseUrl }));
    try {
      await handle
        .transaction()
        .execute((trx) => logEntriesByNumber.up(trx as unknown as Kysely<unknown>));
      expect(await columnsOf(handle, 'tlog_entries')).toEqual([
        'log_no',
        'idx',
        'record_id',
        'leaf',
        'integrated_at',
      ]);
      expect(await columnsOf(handle, 'tlog_logs')).toContain('no');
      // Both tenants' logs, numbered in the order they were made; no entry lost, each leaf its
      // 32 bytes.
      const logs = await numberedEntries(handle);
      expect(logs.map((log) => [log.log_id, log.no])).toEqual([
        [first.tenantId, 1],
        [second.tenantId, 2],
      ]);
      expect(logs.reduce((sum, log) => sum + log.n, 0)).toBe(Number(counted[0]?.n));
      expect(logs.map((log) => log.bytes)).toEqual([32, 32]);
    } finally {
      await handle.destroy();
    }

    const after = await startTestApp(existingStore(created.databaseUrl, created.drop, store.name));
    try {
      expect(await resolveLogKey(after.db)).toBe('number');
      await expectSameRecords(after, first, at, readsFirst);
      await expectSameRecords(after, second, at, readsSecond);
      expect(await places(after.db, first.tenantId)).toEqual(placesBefore);
      // It records on: a third tenant's log is made with the next number.
      const third = await session(after);
      expect(third.answers).toEqual(first.answers);
      expect(third.receipts).toEqual([true, true]);
      expect(third.audit).toMatchObject({ ok: true, findings: [] });
      const logs = await numberedEntries(after.db);
      expect(logs.map((log) => [log.log_id, log.no])).toEqual([
        [first.tenantId, 1],
        [second.tenantId, 2],
        [third.tenantId, 3],
      ]);
      expect(logs.map((log) => log.bytes)).toEqual([32, 32, 32]);
    } finally {
      await after.close();
    }
  });
});
