/**
 * SQLite's ids held as their 16 bytes (src/platform/sqlite-ids.ts, migration 0074): a store with
 * records of text ids, as 0.21.0 and the releases before it leave one, is migrated as it starts;
 * every UUID is then bytes, every read answers as it did on text, on the main connection and on
 * the reader threads; its audit is clean; the records written on it are bytes too, read, verify
 * and audit alike; an erasure works; a backup of it audits clean; and the migration run again
 * changes nothing. On PostgreSQL it changes nothing but the oldest release.
 */
import { dirname, join } from 'node:path';
import { type Kysely, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { findCookieDecisionPage } from '../../src/cookies/decision-filters-repository.js';
import { auditLog } from '../../src/decision-log/audit.js';
import { loadConfig } from '../../src/platform/config.js';
import { createDb, type Db } from '../../src/platform/db.js';
import { migrateToLatest } from '../../src/platform/migrate.js';
import * as binaryIds from '../../src/platform/migrations/0074-sqlite-binary-ids.js';
import { readerDb } from '../../src/platform/reader-db.js';
import type { ReaderThreads } from '../../src/platform/reader-threads.js';
import { backupSqliteFile, openReadOnly } from '../../src/platform/sqlite-backup.js';
import { findStoreSetting } from '../../src/platform/store-settings-repository.js';
import { findEvidencePageNewestFirst } from '../../src/records/evidence-repository.js';
import { session } from '../helpers/api-session.js';
import { startTestApp, type TestApp, testDataKey } from '../helpers/app.js';
import {
  everything,
  expectErasedStillProven,
  logSettled,
  recordEverything,
} from '../helpers/record-everything.js';
import { migrateBefore, sqliteTextIdsStore } from '../helpers/schema-history.js';
import { postgresStore, useBareStore } from '../helpers/stores.js';
import { existingStore } from '../helpers/uuid-ids.js';

/** A UUID's canonical text, as a GLOB pattern (case-sensitive, as the conversion's). */
const uuidGlob = [8, 4, 4, 4, 12].map((n) => '[0-9a-f]'.repeat(n)).join('-');

/** How many values of the store, in any table and column, are a UUID as text. */
async function uuidsAsText(db: Db): Promise<number> {
  const { rows: tables } = await sql<{ name: string }>`select name from sqlite_schema
    where type = 'table' and name not like 'sqlite%' and name not like 'kysely%'`.execute(db);
  let count = 0;
  for (const { name } of tables) {
    const { rows: columns } = await sql<{ name: string }>`select name
      from pragma_table_info(${name})`.execute(db);
    for (const column of columns) {
      const { rows } = await sql<{ n: number }>`select count(*) as n from ${sql.table(name)}
        where ${sql.ref(column.name)} glob ${uuidGlob}`.execute(db);
      count += Number(rows[0]?.n ?? 0);
    }
  }
  return count;
}

/** How the decisions' ids and customers' states' keys are held: SQLite's storage classes. */
async function idClasses(db: Db): Promise<string[]> {
  const { rows } = await sql<{ held: string }>`
    select distinct 'decisions.id ' || typeof(id) as held from decisions
    union select distinct 'decisions.subject_id ' || typeof(subject_id) from decisions
    union select distinct 'customer_version_states.consent_version_id ' ||
      typeof(consent_version_id) from customer_version_states
    union select distinct 'tlog_entries.record_id ' || typeof(record_id) from tlog_entries
    order by 1`.execute(db);
  return rows.map((row) => row.held);
}

describe("SQLite's ids held as their bytes", () => {
  it('read as they did as text, on the main connection and the reader threads; the audit is clean, receipts verify, new records are bytes too, an erasure works, and a backup audits clean', async () => {
    const created = await sqliteTextIdsStore.createMigrated?.();
    if (!created) throw new Error('no migrated SQLite store');
    const store = existingStore(created.databaseUrl, async () => {}, 'sqlite');
    const lagging = async (t: TestApp, tenantId: string) => {
      // Read on the store's reader threads, as the reads that may lag are.
      const onReaders = readerDb(t.readers as ReaderThreads);
      return [
        await findEvidencePageNewestFirst(onReaders, tenantId, {}, undefined, 100),
        await findCookieDecisionPage(onReaders, tenantId, {}, 'oldest', undefined, 100),
      ];
    };
    // Recorded on text ids, as 0.21.0 writes them.
    let t = await startTestApp(store);
    try {
      const at = new Date(Date.now() + 60_000).toISOString();
      const { recorded, blocks, before } = await recordEverything(t, at);
      const laggingBefore = await lagging(t, recorded.tenantId);
      expect(laggingBefore).toEqual(before.slice(-2));
      expect(await uuidsAsText(t.db)).toBeGreaterThan(100);
      expect(await idClasses(t.db)).toEqual([
        'customer_version_states.consent_version_id text',
        'decisions.id text',
        'decisions.subject_id text',
        'tlog_entries.record_id text',
      ]);
      await t.close();

      // Started again as the release with 0074, which its start applies.
      const db = createDb(loadConfig({ DATABASE_URL: created.databaseUrl }));
      await sql`delete from kysely_migration where name = '0074-sqlite-binary-ids'`.execute(db);
      await db.destroy();
      t = await startTestApp(store);
      expect(await findStoreSetting(t.db, 'oldest_release')).toBe('0.21.0');
      expect(await uuidsAsText(t.db)).toBe(0);
      expect(await idClasses(t.db)).toEqual([
        'customer_version_states.consent_version_id blob',
        'decisions.id blob',
        'decisions.subject_id blob',
        'tlog_entries.record_id blob',
      ]);
      expect(await everything(t, recorded, at, blocks)).toEqual(before);
      expect(await lagging(t, recorded.tenantId)).toEqual(laggingBefore);
      expect(await auditLog(t.db, t.vault, registry, recorded.tenantId)).toMatchObject({
        ok: true,
        findings: [],
      });

      // Written on it: the same answers, receipts verify, the audit is clean, the ids are bytes.
      const again = await session(t);
      expect(again.answers).toEqual(recorded.answers);
      expect(again.receipts).toEqual([true, true]);
      expect(again.audit).toMatchObject({ ok: true, findings: [] });
      expect(await uuidsAsText(t.db)).toBe(0);
      expect(await everything(t, recorded, at, blocks)).toEqual(before);

      await expectErasedStillProven(t, recorded);
      await logSettled(t, recorded);
      const audited = await auditLog(t.db, t.vault, registry, recorded.tenantId);
      expect(audited).toMatchObject({ ok: true, findings: [] });
      expect(audited.entries).toBeGreaterThan(5);

      // Run again, it finds no id as text: every row as it was.
      const rowsOf = async () =>
        (await sql`select * from decisions order by id`.execute(t.db)).rows;
      const rowsBefore = await rowsOf();
      await t.db.transaction().execute((trx) => binaryIds.up(trx as unknown as Kysely<unknown>));
      expect(await rowsOf()).toEqual(rowsBefore);
      expect(await uuidsAsText(t.db)).toBe(0);

      // A backup of it, opened as `backup` and `restore` open one, audits clean.
      const copy = join(dirname(created.databaseUrl), 'backup.db');
      await backupSqliteFile(created.databaseUrl, copy, 5_000);
      const backup = openReadOnly(copy);
      try {
        expect(await auditLog(backup, t.vault, registry, recorded.tenantId)).toMatchObject({
          ok: true,
          findings: [],
          entries: audited.entries,
        });
      } finally {
        await backup.destroy();
      }
    } finally {
      await t.close();
      await created.drop();
    }
  });
});

describe('migration 0074 on PostgreSQL', () => {
  const bare = useBareStore(postgresStore);

  it('leaves the schema as it was, and raises the oldest release', async () => {
    const { db } = bare;
    await migrateBefore(db, '0074');
    const schema = await columnsOfEveryTable(db);
    expect(await migrateToLatest(db, testDataKey)).toEqual(['0074-sqlite-binary-ids']);
    expect(await columnsOfEveryTable(db)).toEqual(schema);
    expect(await findStoreSetting(db, 'oldest_release')).toBe('0.21.0');
  });
});

/** PostgreSQL's columns and their types, table by table. */
async function columnsOfEveryTable(db: Db) {
  const { rows } = await sql`select table_name, column_name, data_type
    from information_schema.columns where table_schema = current_schema()
    order by table_name, column_name`.execute(db);
  return rows;
}
