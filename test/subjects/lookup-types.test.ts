/**
 * PostgreSQL's subjects (`subjects`) with their keyed look-up (an HMAC of the customer's id) as
 * 32 bytes of `bytea` instead of 64 hex digits of text, in the row and in the key every request
 * finds its customer by (`subjects_lookup_uq`; migration 0063). The service runs on a store of
 * either form (`LookupType`, src/platform/id-type.ts): a look-up is given as hex and decoded in
 * the statement for a `bytea` column, and reads back as the same hex. One scripted session of
 * the public API (decisions, `pending`, history, a channel's block, bulk status, a cookie choice)
 * answers byte for byte alike on both but for ids, times and hashes, its receipts verify and the
 * audit is clean; a customer is found again by their id, and erased. Migration 0063 converts a
 * store of text look-ups with its customers in it, an erased one's included: the same reads
 * answer the same bytes after it, and its customers are found again. A store holding a look-up
 * the service never writes keeps the column as text and says why; SQLite's store is left as it
 * was.
 */
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { eraseCustomer } from '../../src/erasure/service.js';
import { loadConfig } from '../../src/platform/config.js';
import { createDb, type Db } from '../../src/platform/db.js';
import { knownTypes, resolveIdType } from '../../src/platform/id-type.js';
import { migrateToLatest } from '../../src/platform/migrate.js';
import * as subjectLookupsBinary from '../../src/platform/migrations/0063-subject-lookups-binary.js';
import { findStoreSetting } from '../../src/platform/store-settings-repository.js';
import { apiOf } from '../helpers/api.js';
import { expectSameRecords, placeheld, reads, session } from '../helpers/api-session.js';
import { json, startTestApp, type TestApp, testDataKey } from '../helpers/app.js';
import {
  columnTypes,
  migrateBefore,
  migratedKeepingSqliteSchema,
  postgresTextLookupsStore,
} from '../helpers/schema-history.js';
import { postgresStore, sqliteStore, useBareStore } from '../helpers/stores.js';
import { existingStore } from '../helpers/uuid-ids.js';

const by = { actorKind: 'operator', actor: 'test', ip: '127.0.0.1', userAgent: null } as const;

const lookupType = async (db: Db) => (await columnTypes(db, 'subjects', ['lookup'])).lookup;

describe('PostgreSQL subjects whose look-ups are text and bytea', () => {
  let onText: TestApp;
  let onBinary: TestApp;
  beforeAll(async () => {
    onText = await startTestApp(postgresTextLookupsStore);
    onBinary = await startTestApp(postgresStore);
  });
  afterAll(async () => {
    await onText?.close();
    await onBinary?.close();
  });

  it('the service reads the column type from the store', async () => {
    expect(await lookupType(onBinary.db)).toBe('bytea');
    expect(await lookupType(onText.db)).toBe('text');
    await resolveIdType(onBinary.db);
    await resolveIdType(onText.db);
    expect(knownTypes(onBinary.db)?.lookup).toBe('bytea');
    expect(knownTypes(onText.db)?.lookup).toBe('text');
  });

  it('a scripted session answers byte for byte alike on both; receipts verify, the audit is clean; the records read alike', async () => {
    const text = await session(onText);
    const binary = await session(onBinary);
    expect(binary.answers).toEqual(text.answers);
    expect(binary.receipts).toEqual([true, true]);
    expect(binary.audit).toMatchObject({ ok: true, findings: [] });
    expect(text.audit).toMatchObject({ ok: true, findings: [] });
    const now = new Date().toISOString();
    const again = async (t: TestApp, s: typeof text) =>
      placeheld((await reads(t, s, now)).map((line) => line.replaceAll(s.code, '<code>')));
    expect(await again(onBinary, binary)).toEqual(await again(onText, text));

    // Each look-up is kept as its 32 bytes, and reads back as the hex of the customer's HMAC.
    const { rows } = await sql<{ size: number; lookup: string; hex: string }>`
      select octet_length(lookup) as size, lookup, encode(lookup, 'hex') as hex from subjects
      where tenant_id = ${binary.tenantId}`.execute(onBinary.db);
    expect(rows.length).toBeGreaterThan(1);
    for (const row of rows) {
      expect(row.size).toBe(32);
      expect(row.lookup).toBe(row.hex);
    }
    const ann = onBinary.vault.lookup(binary.tenantId, 'ann');
    expect(rows.map((row) => row.lookup)).toContain(ann);

    // The customer found by their id again: a decision joins their history, then the erasure
    // finds and erases them.
    const api = apiOf(onBinary.app, binary.headers);
    const history = async () =>
      json(
        await onBinary.app.inject({
          method: 'GET',
          url: '/api/v1/customers/ann/consents?limit=50',
          headers: binary.headers,
        }),
      ).data.history as unknown[];
    const before = (await history()).length;
    expect(before).toBeGreaterThan(0);
    const { consent_version_id } = json(await api.latest(binary.code)).data;
    expect((await api.decide('ann', consent_version_id, 'withdraw')).statusCode).toBe(201);
    expect((await history()).length).toBe(before + 1);
    const erased = await eraseCustomer(
      onBinary.db,
      onBinary.vault,
      registry,
      binary.tenantId,
      'ann',
      by,
    );
    expect(erased).toMatchObject({ erased: true });
    const { rows: left } = await sql<{ lookup: string | null }>`
      select lookup from subjects where tenant_id = ${binary.tenantId} and lookup is null`.execute(
      onBinary.db,
    );
    expect(left.length).toBe(1);
  });
});

describe('migration 0063 on a PostgreSQL store with customers in it', () => {
  it("makes the look-ups bytea, an erased customer's null still; the same reads answer the same bytes, the receipts verify, the audit is clean; the customers are found again", async () => {
    // The store as 0.11.0 leaves it: its look-ups text (0063 recorded as applied, so that the
    // test app, which migrates on its start, leaves them so while it records).
    const created = await postgresTextLookupsStore.createMigrated!();
    const old = await startTestApp(existingStore(created.databaseUrl));
    const before = await session(old);
    await eraseCustomer(old.db, old.vault, registry, before.tenantId, 'bob', by);
    const at = new Date().toISOString();
    const readsBefore = await reads(old, before, at);
    const lookupsOf = async (db: Db) =>
      (
        await sql<{ id: string; lookup: string | null }>`select id, lookup from subjects
          where tenant_id = ${before.tenantId} order by id`.execute(db)
      ).rows;
    const lookupsBefore = await lookupsOf(old.db);
    expect(lookupsBefore.filter((row) => row.lookup === null)).toHaveLength(1);
    expect(await lookupType(old.db)).toBe('text');
    await old.close();
    // Started again as the release with 0063, which its start applies.
    const handle = createDb(loadConfig({ DATABASE_URL: created.databaseUrl }));
    await sql`delete from kysely_migration
      where name in ('0063-subject-lookups-binary', '0064-state-keys-without-tenant',
        '0065-control-state-keys-without-tenant', '0066-sealed-columns-binary',
        '0067-customer-time-key-without-id',
        '0068-log-nodes-from-level-6', '0069-log-entries-by-number', '0070-subject-times-timestamptz',
        '0071-states-without-tenant', '0072-sqlite-keys-without-tenant', '0073-sqlite-states-without-tenant', '0074-sqlite-binary-ids')`.execute(
      handle,
    );
    await handle.destroy();
    const next = await startTestApp(existingStore(created.databaseUrl, created.drop));
    try {
      expect(await lookupType(next.db)).toBe('bytea');
      expect(await findStoreSetting(next.db, 'oldest_release')).toBe('0.21.0');
      expect(await lookupsOf(next.db)).toEqual(lookupsBefore);
      await expectSameRecords(next, before, at, readsBefore);
      // Ann is found again: her decision joins her history; bob starts anew.
      const api = apiOf(next.app, before.headers);
      const { consent_version_id } = json(await api.latest(before.code)).data;
      const ann = await api.decide('ann', consent_version_id, 'withdraw');
      expect(json(ann).data).toMatchObject({ decision: 'withdraw' });
      expect((await api.decide('bob', consent_version_id, 'given')).statusCode).toBe(201);
      expect(await lookupsOf(next.db)).toHaveLength(lookupsBefore.length + 1);
      // It runs again as a no-op.
      await subjectLookupsBinary.up(next.db as unknown as Kysely<unknown>);
      expect(await lookupType(next.db)).toBe('bytea');
    } finally {
      await next.close();
    }
  });
});

describe('migration 0063 on a PostgreSQL store holding a look-up the service never writes', () => {
  const bare = useBareStore(postgresStore);

  it('keeps the look-ups text, and the store says why', async () => {
    const { db } = bare;
    await migrateBefore(db, '0063');
    const tenant = '0190e8a0-0000-7000-8000-00000000a001';
    const subject = '0190e8a0-0000-7000-8000-00000000b001';
    await sql`insert into subjects (tenant_id, id, lookup, wrapped_key, salt, commitment,
        created_at, erased_at)
      values (${tenant}, ${subject}, 'put-in-by-hand', null, null, 'c', ${new Date().toISOString()},
        null)`.execute(db);
    expect(await migrateToLatest(db, testDataKey)).toEqual([
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
    expect(await lookupType(db)).toBe('text');
    expect(await findStoreSetting(db, 'lookups_kept_as_text')).toBe(
      `subjects holds a look-up that is no SHA-256 HMAC in lowercase hex: subject ${subject}`,
    );
    expect(await findStoreSetting(db, 'oldest_release')).toBe('0.21.0');
  });
});

describe('migration 0063 on SQLite', () => {
  const bare = useBareStore(sqliteStore);

  it('leaves the schema as it was, and raises the oldest release', async () => {
    const { db } = bare;
    expect(await migratedKeepingSqliteSchema(db, '0063')).toEqual([
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
