/**
 * PostgreSQL's subjects keep their times (`created_at`, `erased_at`) as `timestamptz` since
 * migration 0070 (8 bytes instead of 25), ISO text before. The service runs on a store of either
 * form (`subjectTimes`, src/platform/id-type.ts): one scripted session of the public API answers
 * byte for byte alike on both, its receipts verify and the audit is clean; a batch of new
 * subjects (one statement on PostgreSQL) and an erasure write their times, which read back as the
 * same ISO text. 0070 converts a store with customers in it, an erased one included: every time
 * reads as it did, the same reads answer the same bytes. SQLite's store is left as it was.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { eraseCustomer } from '../../src/erasure/service.js';
import { loadConfig } from '../../src/platform/config.js';
import { createDb } from '../../src/platform/db.js';
import { knownTypes, resolveIdType } from '../../src/platform/id-type.js';
import * as subjectTimesTimestamptz from '../../src/platform/migrations/0070-subject-times-timestamptz.js';
import { findStoreSetting } from '../../src/platform/store-settings-repository.js';
import { insertSubjects } from '../../src/subjects/repository.js';
import { expectSameRecords, reads, session } from '../helpers/api-session.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  columnTypes,
  migratedKeepingSqliteSchema,
  postgresTextSubjectTimesStore,
} from '../helpers/schema-history.js';
import { postgresStore, sqliteStore, useBareStore } from '../helpers/stores.js';
import { existingStore } from '../helpers/uuid-ids.js';

const migration = '0070-subject-times-timestamptz';
const subjectTimes = (t: TestApp) => columnTypes(t.db, 'subjects', ['created_at', 'erased_at']);
const isoTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('PostgreSQL subjects whose times are text and timestamptz', () => {
  let onText: TestApp;
  let onTimes: TestApp;
  beforeAll(async () => {
    onText = await startTestApp(postgresTextSubjectTimesStore);
    onTimes = await startTestApp(postgresStore);
  });
  afterAll(async () => {
    await onText?.close();
    await onTimes?.close();
  });

  it('the service reads the columns types from the store', async () => {
    const timestamptz = 'timestamp with time zone';
    expect(await subjectTimes(onTimes)).toEqual({
      created_at: timestamptz,
      erased_at: timestamptz,
    });
    expect(await subjectTimes(onText)).toEqual({ created_at: 'text', erased_at: 'text' });
    await resolveIdType(onTimes.db);
    await resolveIdType(onText.db);
    expect(knownTypes(onTimes.db)?.subjectTimes).toBe('timestamptz');
    expect(knownTypes(onText.db)?.subjectTimes).toBe('text');
  });

  it('a scripted session answers byte for byte alike on both; receipts verify, the audit is clean', async () => {
    const onTextSession = await session(onText);
    const onTimesSession = await session(onTimes);
    expect(onTimesSession.answers).toEqual(onTextSession.answers);
    expect(onTimesSession.receipts).toEqual([true, true]);
    expect(onTimesSession.audit).toMatchObject({ ok: true, findings: [] });

    // An erasure writes the subject's time of erasure, read back as ISO text.
    const by = { actorKind: 'operator', actor: 'test', ip: '127.0.0.1', userAgent: null } as const;
    const erased = await eraseCustomer(
      onTimes.db,
      onTimes.vault,
      registry,
      onTimesSession.tenantId,
      'bob',
      by,
    );
    expect(erased).toMatchObject({ erased: true });
    const { rows } = await sql<{ created_at: string; erased_at: string | null }>`
      select created_at, erased_at from subjects
      where tenant_id = ${onTimesSession.tenantId} order by created_at`.execute(onTimes.db);
    expect(rows.length).toBeGreaterThan(1);
    for (const row of rows) expect(row.created_at).toMatch(isoTime);
    expect(rows.filter((row) => row.erased_at !== null).map((row) => row.erased_at)).toEqual([
      erased.erased_at,
    ]);
    expect(erased.erased_at).toMatch(isoTime);
  });

  it('a batch of new subjects is one statement of either form, its times read back as given', async () => {
    for (const t of [onText, onTimes]) {
      const tenantId = (await sql<{ id: string }>`select id from tenants limit 1`.execute(t.db))
        .rows[0]?.id as string;
      const times = ['2026-12-06T09:00:00.000Z', '2026-12-06T09:00:00.123Z'];
      const rows = times.map((time) => ({
        tenant_id: tenantId,
        id: randomUUID(),
        lookup: randomBytes(32).toString('hex'),
        wrapped_key: randomBytes(44).toString('base64'),
        salt: randomBytes(16).toString('base64'),
        commitment: randomBytes(32).toString('base64'),
        created_at: time,
        erased_at: null,
      }));
      const kept = await t.db.transaction().execute((trx) => insertSubjects(trx, rows));
      expect(kept).toBe(2);
      const { rows: read } = await sql<{ created_at: string; erased_at: string | null }>`
        select created_at, erased_at from subjects
        where id in (${sql.join(rows.map((row) => row.id))}) order by created_at`.execute(t.db);
      expect(read).toEqual(times.map((time) => ({ created_at: time, erased_at: null })));
    }
  });
});

describe('migration 0070 on a PostgreSQL store with customers in it', () => {
  it("makes the subjects' times timestamptz; every time reads as it did, the same reads answer the same bytes, receipts verify, the audit is clean", async () => {
    const created = await postgresTextSubjectTimesStore.createMigrated!();
    const old = await startTestApp(existingStore(created.databaseUrl));
    const before = await session(old);
    const by = { actorKind: 'operator', actor: 'test', ip: '127.0.0.1', userAgent: null } as const;
    await eraseCustomer(old.db, old.vault, registry, before.tenantId, 'bob', by);
    const at = new Date().toISOString();
    const readsBefore = await reads(old, before, at);
    const timesOf = async (t: TestApp) =>
      (
        await sql<{ id: string; created_at: string; erased_at: string | null }>`
          select id, created_at, erased_at from subjects order by id`.execute(t.db)
      ).rows;
    const timesBefore = await timesOf(old);
    expect(timesBefore.filter((row) => row.erased_at !== null)).toHaveLength(1);
    expect(await subjectTimes(old)).toEqual({ created_at: 'text', erased_at: 'text' });
    await old.close();
    // Started again as the release with 0070, which its start applies.
    const handle = createDb(loadConfig({ DATABASE_URL: created.databaseUrl }));
    await sql`delete from kysely_migration
      where name in (${migration}, '0071-states-without-tenant', '0072-sqlite-keys-without-tenant', '0073-sqlite-states-without-tenant', '0074-sqlite-binary-ids')`.execute(
      handle,
    );
    await handle.destroy();
    const next = await startTestApp(existingStore(created.databaseUrl, created.drop));
    try {
      const timestamptz = 'timestamp with time zone';
      expect(await subjectTimes(next)).toEqual({ created_at: timestamptz, erased_at: timestamptz });
      expect(await findStoreSetting(next.db, 'oldest_release')).toBe('0.21.0');
      expect(await timesOf(next)).toEqual(timesBefore);
      await expectSameRecords(next, before, at, readsBefore);
      // It records on, and runs again as a no-op.
      expect((await session(next)).answers).toEqual(before.answers);
      await subjectTimesTimestamptz.up(next.db as unknown as Kysely<unknown>);
      expect(await subjectTimes(next)).toEqual({ created_at: timestamptz, erased_at: timestamptz });
    } finally {
      await next.close();
    }
  });
});

describe('migration 0070 on SQLite', () => {
  const bare = useBareStore(sqliteStore);

  it('leaves the schema as it was, and raises the oldest release', async () => {
    const { db } = bare;
    expect(await migratedKeepingSqliteSchema(db, '0070', '0071-states-without-tenant')).toEqual([
      migration,
      '0071-states-without-tenant',
      '0072-sqlite-keys-without-tenant',
      '0073-sqlite-states-without-tenant',
      '0074-sqlite-binary-ids',
    ]);
    expect(await findStoreSetting(db, 'oldest_release')).toBe('0.21.0');
  });
});
