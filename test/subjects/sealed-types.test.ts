/**
 * PostgreSQL's sealed columns (a record's personal fields and evidence salt, a subject's wrapped
 * key, salt and commitment) as their bytes in `bytea` instead of base64 text: three quarters of
 * the size (migration 0066). The service reads and writes either (`SealedType`,
 * src/platform/id-type.ts): a store of text columns that 0066 converts answers every read of its
 * records byte for byte as before, receipts and evidence included, and the records written on it
 * after read, verify and audit as those written on text. A store holding a value the service
 * never writes keeps the columns as text and says why; SQLite's store is left as it was.
 * SQLite reads each sealed value as it is held, base64 text or its bytes as a blob: a store
 * whose values are bytes answers every read as it did on text, its audit clean, and the text
 * written beside them reads alike.
 */
import { type Kysely, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { findCookieDecisionPage } from '../../src/cookies/decision-filters-repository.js';
import { auditLog } from '../../src/decision-log/audit.js';
import { loadConfig } from '../../src/platform/config.js';
import { createDb, type Db } from '../../src/platform/db.js';
import { knownTypes, resolveIdType, typesKeptAsText } from '../../src/platform/id-type.js';
import { migrateToLatest } from '../../src/platform/migrate.js';
import * as sealedColumnsBinary from '../../src/platform/migrations/0066-sealed-columns-binary.js';
import { readerDb } from '../../src/platform/reader-db.js';
import type { ReaderThreads } from '../../src/platform/reader-threads.js';
import { findStoreSetting } from '../../src/platform/store-settings-repository.js';
import { findEvidencePageNewestFirst } from '../../src/records/evidence-repository.js';
import { type Session, session } from '../helpers/api-session.js';
import { startTestApp, testDataKey } from '../helpers/app.js';
import {
  everything,
  expectErasedStillProven,
  type PartnerBlock,
  recordEverything,
} from '../helpers/record-everything.js';
import {
  columnTypes,
  migrateBefore,
  migratedKeepingSqliteSchema,
  postgresTextSealedStore,
  sealedColumns,
} from '../helpers/schema-history.js';
import { postgresStore, sqliteStore, useBareStore } from '../helpers/stores.js';
import { existingStore } from '../helpers/uuid-ids.js';

/**
 * The byte length of every value of the sealed columns of the tenant's rows, by column, in the
 * rows' order: `as` the column holds it, or `decoded` from its base64.
 */
async function sealedSizes(db: Db, tenantId: string, form: 'as' | 'decoded') {
  const sizes: Record<string, number[]> = {};
  for (const [table, columns] of Object.entries(sealedColumns)) {
    for (const column of columns) {
      const value = form === 'as' ? sql.ref(column) : sql`decode(${sql.ref(column)}, 'base64')`;
      const { rows } = await sql<{ size: number | null }>`select octet_length(${value}) as size
        from ${sql.table(table)} where tenant_id = ${tenantId} order by id`.execute(db);
      sizes[`${table}.${column}`] = rows.map((row) => Number(row.size ?? -1));
    }
  }
  return sizes;
}

describe('migration 0066 on a PostgreSQL store with records in it', () => {
  it('makes the sealed columns bytea; every read answers as before; records written on it read, verify and audit as on text', async () => {
    // The store as 0.14.0 leaves it: its sealed columns text (0066 recorded as applied, so that
    // the test app, which migrates on its start, leaves them so while it records).
    const created = await postgresTextSealedStore.createMigrated!();
    const onText = await startTestApp(existingStore(created.databaseUrl));
    let recorded: Session;
    let before: unknown[];
    let blocks: PartnerBlock;
    const at = new Date(Date.now() + 60_000).toISOString();
    try {
      ({ recorded, blocks, before } = await recordEverything(onText, at));
      expect(knownTypes(onText.db)?.sealed).toBe('text');
    } finally {
      await onText.close();
    }

    const handle = createDb(loadConfig({ DATABASE_URL: created.databaseUrl }));
    const textSizes = await sealedSizes(handle, recorded.tenantId, 'as');
    const bytes = await sealedSizes(handle, recorded.tenantId, 'decoded');
    expect(await columnTypes(handle, 'subjects', ['wrapped_key'])).toEqual({
      wrapped_key: 'text',
    });
    // Started again as the release with 0066, which its start applies.
    await sql`delete from kysely_migration
      where name in ('0066-sealed-columns-binary', '0067-customer-time-key-without-id',
        '0068-log-nodes-from-level-6', '0069-log-entries-by-number', '0070-subject-times-timestamptz',
        '0071-states-without-tenant', '0072-sqlite-keys-without-tenant', '0073-sqlite-states-without-tenant', '0074-sqlite-binary-ids')`.execute(
      handle,
    );
    await handle.destroy();

    const onBytes = await startTestApp(existingStore(created.databaseUrl, created.drop));
    const { db } = onBytes;
    try {
      for (const [table, columns] of Object.entries(sealedColumns)) {
        expect(Object.values(await columnTypes(db, table, columns)), table).toEqual(
          columns.map(() => 'bytea'),
        );
      }
      expect(await findStoreSetting(db, 'oldest_release')).toBe('0.21.0');
      expect(await typesKeptAsText(db)).toEqual([]);
      // Each value is its bytes, smaller than its text; an erased subject's key and salt null.
      expect(await sealedSizes(db, recorded.tenantId, 'as')).toEqual(bytes);
      for (const [column, sizes] of Object.entries(textSizes)) {
        expect(sizes.length, column).toBeGreaterThan(0);
        sizes.forEach((size, i) => {
          if (size !== -1) expect(bytes[column]?.[i], column).toBeLessThan(size);
        });
      }
      expect(bytes['subjects.wrapped_key']).toContain(-1);

      await resolveIdType(onBytes.db);
      expect(knownTypes(onBytes.db)?.sealed).toBe('bytea');
      expect(await everything(onBytes, recorded, at, blocks)).toEqual(before);

      // Written on bytea: the same answers as on text, receipts verify, the audit is clean.
      const again = await session(onBytes);
      expect(again.answers).toEqual(recorded.answers);
      expect(again.receipts).toEqual([true, true]);
      expect(again.audit).toMatchObject({ ok: true, findings: [] });
      await expectErasedStillProven(onBytes, again);

      // It runs again as a no-op.
      await sealedColumnsBinary.up(db as unknown as Kysely<unknown>);
      expect(await columnTypes(db, 'decisions', ['personal'])).toEqual({ personal: 'bytea' });
    } finally {
      await onBytes.close();
    }
  });
});

describe('migration 0066 on a PostgreSQL store holding a value the service never writes', () => {
  const bare = useBareStore(postgresStore);

  it('keeps every sealed column text, and the store says why', async () => {
    const { db } = bare;
    await migrateBefore(db, '0066');
    const tenant = '0190e8a0-0000-7000-8000-00000000a001';
    const at = new Date().toISOString();
    // A valid subject, then one whose salt base64 breaks into lines, as PostgreSQL's encode
    // would write it: it decodes to the same bytes, but would read back otherwise.
    for (const [id, salt] of [
      ['0190e8a0-0000-7000-8000-00000000b001', 'c2FsdA=='],
      ['0190e8a0-0000-7000-8000-00000000b002', 'c2Fs\ndA=='],
    ] as const) {
      await sql`insert into subjects (tenant_id, id, lookup, wrapped_key, salt, commitment,
          created_at, erased_at)
        values (${tenant}, ${id}, ${Buffer.alloc(32, id.slice(-1))}, 'a2V5', ${salt}, 'Y29t', ${at},
          null)`.execute(db);
    }
    expect(await migrateToLatest(db, testDataKey)).toEqual([
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
    expect(await columnTypes(db, 'decisions', ['personal', 'evidence_salt'])).toEqual({
      personal: 'text',
      evidence_salt: 'text',
    });
    expect(await columnTypes(db, 'subjects', ['salt', 'wrapped_key'])).toEqual({
      salt: 'text',
      wrapped_key: 'text',
    });
    expect(await findStoreSetting(db, 'sealed_kept_as_text')).toBe(
      'a sealed column holds a value that is no base64 as the service writes it: ' +
        'subjects.salt, row 0190e8a0-0000-7000-8000-00000000b002',
    );
    expect((await typesKeptAsText(db)).map((kept) => kept.message)).toEqual([
      expect.stringContaining('The sealed columns are text, not bytea: migration 0066'),
    ]);
    expect(await findStoreSetting(db, 'oldest_release')).toBe('0.21.0');
  });
});

describe('migration 0066 on SQLite', () => {
  const bare = useBareStore(sqliteStore);

  it('leaves the schema as it was, and raises the oldest release', async () => {
    const { db } = bare;
    expect(await migratedKeepingSqliteSchema(db, '0066')).toEqual([
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

/**
 * Each sealed value of every table written again as its bytes, in Node, as a blob (SQLite keeps
 * in a column whatever each row was given). How many distinct values were, by column.
 */
async function sealedAsBlobs(db: Db): Promise<Record<string, number>> {
  const written: Record<string, number> = {};
  for (const [table, columns] of Object.entries(sealedColumns)) {
    for (const column of columns) {
      const { rows } = await sql<{ value: string }>`select distinct ${sql.ref(column)} as value
        from ${sql.table(table)} where typeof(${sql.ref(column)}) = 'text'`.execute(db);
      for (const { value } of rows) {
        const bytes = Buffer.from(value, 'base64');
        expect(bytes.toString('base64'), `${table}.${column}`).toBe(value);
        await sql`update ${sql.table(table)} set ${sql.ref(column)} = ${bytes}
          where ${sql.ref(column)} = ${value}`.execute(db);
      }
      written[`${table}.${column}`] = rows.length;
    }
  }
  return written;
}

/** The storage classes the values of every sealed column hold, by column. */
async function sealedClasses(db: Db): Promise<Record<string, string[]>> {
  const classes: Record<string, string[]> = {};
  for (const [table, columns] of Object.entries(sealedColumns)) {
    for (const column of columns) {
      const { rows } = await sql<{ class: string }>`select distinct typeof(${sql.ref(column)})
          as class
        from ${sql.table(table)} order by 1`.execute(db);
      classes[`${table}.${column}`] = rows.map((row) => row.class);
    }
  }
  return classes;
}

describe("SQLite's sealed values held as their bytes", () => {
  it('read as they did as text, value by value; the audit is clean, receipts verify, an erasure works, and text written beside them reads alike', async () => {
    const t = await startTestApp(sqliteStore);
    try {
      const at = new Date(Date.now() + 60_000).toISOString();
      const { recorded, blocks, before } = await recordEverything(t, at);
      // Read on the store's reader threads too, as the reads that may lag are.
      const onReaders = readerDb(t.readers as ReaderThreads);
      const lagging = async () => [
        await findEvidencePageNewestFirst(onReaders, recorded.tenantId, {}, undefined, 100),
        await findCookieDecisionPage(onReaders, recorded.tenantId, {}, 'oldest', undefined, 100),
      ];
      const laggingBefore = await lagging();
      expect(laggingBefore).toEqual(before.slice(-2));

      // Every sealed column held some text, which is now bytes; an erased key and salt null.
      const written = await sealedAsBlobs(t.db);
      for (const [column, count] of Object.entries(written)) {
        expect(count, column).toBeGreaterThan(0);
      }
      const classes = await sealedClasses(t.db);
      for (const [column, held] of Object.entries(classes)) {
        expect(held, column).toEqual(
          column === 'subjects.wrapped_key' || column === 'subjects.salt'
            ? ['blob', 'null']
            : ['blob'],
        );
      }

      expect(await everything(t, recorded, at, blocks)).toEqual(before);
      expect(await lagging()).toEqual(laggingBefore);
      expect(await auditLog(t.db, t.vault, registry, recorded.tenantId)).toMatchObject({
        ok: true,
        findings: [],
      });

      // Written beside the bytes, as text: the same answers, receipts verify, the audit is clean.
      const again = await session(t);
      expect(again.answers).toEqual(recorded.answers);
      expect(again.receipts).toEqual([true, true]);
      expect(again.audit).toMatchObject({ ok: true, findings: [] });
      expect((await sealedClasses(t.db))['decisions.personal']).toEqual(['blob', 'text']);
      expect(await everything(t, recorded, at, blocks)).toEqual(before);

      // A customer whose key is held as bytes is erased; the receipt still proves the decision.
      await expectErasedStillProven(t, recorded);
      expect(await auditLog(t.db, t.vault, registry, recorded.tenantId)).toMatchObject({
        ok: true,
        findings: [],
      });
    } finally {
      await t.close();
    }
  });
});
