/**
 * PostgreSQL's log entries (`tlog_entries`) with their leaf's hash as 32 bytes of `bytea`
 * instead of 64 hex digits of text, and the time each was logged as `timestamptz` instead of 24
 * characters of ISO text (migration 0062). The service runs on a store of either form
 * (`LogEntryTypes`, src/platform/id-type.ts): a `bytea` reads as the lowercase hex every store's
 * hashes are, whatever the session's `bytea_output`; one scripted session of the public API
 * answers byte for byte alike on both but for ids, times and hashes, its receipts verify, the
 * audit is clean, and the entries read back in the same forms. Migration 0062 converts a store
 * of text entries with its records in it, a leaf 0.4.0 kept as its text included: the same reads
 * answer the same bytes after it and earlier receipts are served again and verify. A store whose
 * log is partitioned by time keeps its times as text and says why, and the service runs on it;
 * SQLite's store is left as it was.
 */
import { createHash } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { timeTables } from '../../src/app/time-tables.js';
import { findEntriesByRecords } from '../../src/decision-log/repository.js';
import { loadConfig } from '../../src/platform/config.js';
import { createDb, type Db } from '../../src/platform/db.js';
import { knownTypes, resolveIdType } from '../../src/platform/id-type.js';
import { migrateToLatest } from '../../src/platform/migrate.js';
import * as logEntriesBinary from '../../src/platform/migrations/0062-log-entries-binary.js';
import { partitionByTime } from '../../src/platform/partitions.js';
import { findStoreSetting } from '../../src/platform/store-settings-repository.js';
import { expectSameRecords, placeheld, reads, session } from '../helpers/api-session.js';
import { startTestApp, type TestApp, testDataKey } from '../helpers/app.js';
import { ofLog } from '../helpers/log-entries.js';
import {
  columnTypes,
  migrateBefore,
  migratedKeepingSqliteSchema,
  postgresTextLogStore,
} from '../helpers/schema-history.js';
import { postgresStore, sqliteStore, useBareStore } from '../helpers/stores.js';
import { existingStore } from '../helpers/uuid-ids.js';

const isoTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const hash = /^[0-9a-f]{64}$/;

const entryTypes = (db: Db) => columnTypes(db, 'tlog_entries', ['leaf', 'integrated_at']);
const binary = { leaf: 'bytea', integrated_at: 'timestamp with time zone' };
const text = { leaf: 'text', integrated_at: 'text' };

/** A tenant's entries as the service reads them: each leaf's hex and each entry's time. */
const entriesOf = async (db: Db, tenantId: string) =>
  (
    await sql<{ idx: number; leaf: string; integrated_at: string }>`
      select idx, leaf, integrated_at from tlog_entries where ${await ofLog(db, tenantId)}
      order by idx`.execute(db)
  ).rows;

describe('PostgreSQL log entries whose leaves are text and bytea', () => {
  let onText: TestApp;
  let onBinary: TestApp;
  beforeAll(async () => {
    onText = await startTestApp(postgresTextLogStore);
    onBinary = await startTestApp(postgresStore);
  });
  afterAll(async () => {
    await onText?.close();
    await onBinary?.close();
  });

  it('the service reads the columns types from the store', async () => {
    expect(await entryTypes(onBinary.db)).toEqual(binary);
    expect(await entryTypes(onText.db)).toEqual(text);
    await resolveIdType(onBinary.db);
    await resolveIdType(onText.db);
    expect(knownTypes(onBinary.db)?.log).toEqual({ leaf: 'bytea', time: 'timestamptz' });
    expect(knownTypes(onText.db)?.log).toEqual({ leaf: 'text', time: 'text' });
  });

  it('reads a bytea as lowercase hex whatever the session writes it as', async () => {
    for (const output of ['hex', 'escape']) {
      await onBinary.db.connection().execute(async (connection) => {
        await sql`select set_config('bytea_output', ${output}, false)`.execute(connection);
        const { rows } = await sql<{ bytes: unknown; empty: unknown }>`
          select '\\x00ff5c41'::bytea as bytes, ''::bytea as empty`.execute(connection);
        await sql`reset bytea_output`.execute(connection);
        expect(rows).toEqual([{ bytes: '00ff5c41', empty: '' }]);
      });
    }
  });

  it('a scripted session answers byte for byte alike on both; receipts verify, the audit is clean; the entries read alike', async () => {
    const onTextSession = await session(onText);
    const onBinarySession = await session(onBinary);
    expect(onBinarySession.answers).toEqual(onTextSession.answers);
    expect(onBinarySession.receipts).toEqual([true, true]);
    expect(onBinarySession.audit).toMatchObject({ ok: true, findings: [] });
    expect(onTextSession.audit).toMatchObject({ ok: true, findings: [] });
    const now = new Date().toISOString();
    const again = async (t: TestApp, s: typeof onTextSession) =>
      placeheld((await reads(t, s, now)).map((line) => line.replaceAll(s.code, '<code>')));
    expect(await again(onBinary, onBinarySession)).toEqual(await again(onText, onTextSession));

    // Every leaf is kept as its 32 bytes, and reads back as the hex of its hash.
    const sizes = await sql<{ size: number }>`
      select distinct octet_length(leaf) as size from tlog_entries`.execute(onBinary.db);
    expect(sizes.rows).toEqual([{ size: 32 }]);
    const ids = await onBinary.db
      .selectFrom('decisions')
      .select('id')
      .where('tenant_id', '=', onBinarySession.tenantId)
      .execute();
    const entries = await findEntriesByRecords(
      onBinary.db,
      onBinarySession.tenantId,
      ids.map((row) => row.id),
    );
    expect(entries.length).toBe(ids.length);
    for (const entry of entries) expect(entry.leaf).toMatch(hash);
    const { rows: stored } = await sql<{ leaf: string; hex: string; integrated_at: string }>`
      select leaf, encode(leaf, 'hex') as hex, integrated_at from tlog_entries
      where ${await ofLog(onBinary.db, onBinarySession.tenantId)}`.execute(onBinary.db);
    for (const row of stored) {
      expect(row.leaf).toBe(row.hex);
      expect(row.integrated_at).toMatch(isoTime);
    }
  });
});

describe('migration 0062 on a PostgreSQL store with records in it', () => {
  it("makes the leaves bytea and the times timestamptz, a 0.4.0 leaf's text its hash; the same reads answer the same bytes, the receipts verify, the audit is clean", async () => {
    // The store as 0.10.0 leaves it: its entries text (0062 recorded as applied, so that the
    // test app, which migrates on its start, leaves them so while it records).
    const created = await postgresTextLogStore.createMigrated!();
    const old = await startTestApp(existingStore(created.databaseUrl));
    const before = await session(old);
    const at = new Date().toISOString();
    const readsBefore = await reads(old, before, at);
    expect(await entryTypes(old.db)).toEqual(text);
    // The decision of the session's first receipt, logged as 0.4.0 logged it: as its text.
    const first = JSON.parse(before.receiptBodies[0] as string).data;
    const leafText = first.leaf as string;
    expect(leafText).toMatch(/^consent-log\//);
    await sql`update tlog_entries set leaf = ${leafText}
      where ${await ofLog(old.db, before.tenantId)} and idx = ${first.leaf_index}`.execute(old.db);
    const entriesBefore = await entriesOf(old.db, before.tenantId);
    await old.close();
    // Started again as the release with 0062, which its start applies.
    const handle = createDb(loadConfig({ DATABASE_URL: created.databaseUrl }));
    await sql`delete from kysely_migration
      where name in ('0062-log-entries-binary', '0063-subject-lookups-binary',
        '0064-state-keys-without-tenant',
        '0065-control-state-keys-without-tenant', '0066-sealed-columns-binary',
        '0067-customer-time-key-without-id',
        '0068-log-nodes-from-level-6', '0069-log-entries-by-number', '0070-subject-times-timestamptz',
        '0071-states-without-tenant', '0072-sqlite-keys-without-tenant', '0073-sqlite-states-without-tenant', '0074-sqlite-binary-ids')`.execute(
      handle,
    );
    await handle.destroy();
    const next = await startTestApp(existingStore(created.databaseUrl, created.drop));
    try {
      expect(await entryTypes(next.db)).toEqual(binary);
      expect(await findStoreSetting(next.db, 'oldest_release')).toBe('0.21.0');
      // Every entry as it was, but the text: its hash (RFC 6962, SHA-256 of 0x00 and the text).
      // A record still queued when the old app stopped is appended after them by the new one.
      const leafHash = createHash('sha256')
        .update(Buffer.from([0]))
        .update(leafText, 'utf8')
        .digest('hex');
      const entriesAfter = await entriesOf(next.db, before.tenantId);
      expect(entriesAfter.slice(0, entriesBefore.length)).toEqual(
        entriesBefore.map((entry) =>
          entry.idx === first.leaf_index ? { ...entry, leaf: leafHash } : entry,
        ),
      );
      await expectSameRecords(next, before, at, readsBefore);
      // It records on, and runs again as a no-op.
      expect((await session(next)).answers).toEqual(before.answers);
      await logEntriesBinary.up(next.db as unknown as Kysely<unknown>);
      expect(await entryTypes(next.db)).toEqual(binary);
    } finally {
      await next.close();
    }
  });
});

describe('migration 0062 on a PostgreSQL store partitioned by time', () => {
  const bare = useBareStore(postgresStore);

  it('makes the leaves bytea, keeps the times text and says why; the service runs on it', async () => {
    const { db } = bare;
    await migrateBefore(db, '0062');
    const { tables } = await partitionByTime(db, timeTables(registry), 'month');
    expect(tables.map((table) => table.table)).toContain('tlog_entries');
    expect(await migrateToLatest(db, testDataKey)).toEqual([
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
    expect(await entryTypes(db)).toEqual({ leaf: 'bytea', integrated_at: 'text' });
    expect(await findStoreSetting(db, 'log_times_kept_as_text')).toBe(
      'tlog_entries is partitioned by time on integrated_at',
    );
    expect(await findStoreSetting(db, 'oldest_release')).toBe('0.21.0');

    const t = await startTestApp(existingStore(bare.databaseUrl));
    try {
      await resolveIdType(t.db);
      expect(knownTypes(t.db)?.log).toEqual({ leaf: 'bytea', time: 'text' });
      const s = await session(t);
      expect(s.receipts).toEqual([true, true]);
      expect(s.audit).toMatchObject({ ok: true, findings: [] });
      for (const entry of await entriesOf(t.db, s.tenantId)) {
        expect(entry.leaf).toMatch(hash);
        expect(entry.integrated_at).toMatch(isoTime);
      }
    } finally {
      await t.close();
    }
  });
});

describe('migration 0062 on SQLite', () => {
  const bare = useBareStore(sqliteStore);

  it('leaves the schema as it was, and raises the oldest release', async () => {
    const { db } = bare;
    expect(await migratedKeepingSqliteSchema(db, '0062')).toEqual([
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
