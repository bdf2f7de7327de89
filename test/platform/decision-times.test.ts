/**
 * PostgreSQL's decision times (`decisions.decided_at` and the customer's states'
 * `last_decided_at`) as `timestamptz` columns, 8 bytes instead of the 25 of ISO text in the row
 * and every key that holds one. The service runs on a store of either form
 * (`TimeType`, src/platform/id-type.ts): a `timestamptz` reads as the ISO text of every other
 * time, whatever the session's time zone; one scripted session of the public API answers byte
 * for byte alike on both but for ids and times, its receipts verify and the audit is clean; the
 * reads that bound times (as-of, bulk status, a page's cursor, the counts per day, the lapse
 * walk) answer alike at the edges of the years a time can have. Migration 0061 converts a
 * store of text times with its records in it: the same reads answer the same bytes after it,
 * earlier receipts are served again for the same leaves; a store partitioned by time keeps
 * them as text and says why; SQLite's store is left as it was.
 */
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { timeTables } from '../../src/app/time-tables.js';
import { findGivenBetween } from '../../src/decisions/lapse-repository.js';
import { loadConfig } from '../../src/platform/config.js';
import { createDb, type Db } from '../../src/platform/db.js';
import { resolveTimeType } from '../../src/platform/id-type.js';
import { migrateToLatest } from '../../src/platform/migrate.js';
import * as decisionTimesTimestamptz from '../../src/platform/migrations/0061-decision-times-timestamptz.js';
import { partitionByTime } from '../../src/platform/partitions.js';
import { isoFromTimestamptz } from '../../src/platform/postgres.js';
import { findStoreSetting } from '../../src/platform/store-settings-repository.js';
import { countDecisionsPerDay } from '../../src/records/evidence-repository.js';
import { expectSameRecords, placeheld, reads, session } from '../helpers/api-session.js';
import { json, startTestApp, type TestApp, testDataKey } from '../helpers/app.js';
import {
  migrateBefore,
  migratedKeepingSqliteSchema,
  postgresTextTimesStore,
} from '../helpers/schema-history.js';
import { postgresStore, sqliteStore, useBareStore } from '../helpers/stores.js';
import { existingStore } from '../helpers/uuid-ids.js';

describe('isoFromTimestamptz', () => {
  it.each([
    ['2026-01-31 12:00:00+00', '2026-01-31T12:00:00.000Z'],
    ['2026-01-31 19:00:00.5+07', '2026-01-31T12:00:00.500Z'],
    ['2026-01-31 06:30:00.123456-05:30', '2026-01-31T12:00:00.123Z'],
    ['2026-02-01 01:00:00.12+13', '2026-01-31T12:00:00.120Z'],
    ['1883-11-18 12:03:58+00:03:58', '1883-11-18T12:00:00.000Z'],
    ['1883-11-18 11:56:02-00:03:58', '1883-11-18T12:00:00.000Z'],
    ['9999-12-31 23:59:59.999+00', '9999-12-31T23:59:59.999Z'],
  ])('reads %s as %s', (text, iso) => {
    expect(isoFromTimestamptz(text)).toBe(iso);
  });

  it('leaves what is no such time as it is', () => {
    expect(isoFromTimestamptz('infinity')).toBe('infinity');
    expect(isoFromTimestamptz('0044-03-15 12:00:00+00 BC')).toBe('0044-03-15 12:00:00+00 BC');
  });
});

const isoTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const cursorOf = (position: unknown[]) =>
  Buffer.from(JSON.stringify(position)).toString('base64url');

describe('PostgreSQL stores whose decision times are text and timestamptz', () => {
  let onText: TestApp;
  let onTz: TestApp;
  beforeAll(async () => {
    onText = await startTestApp(postgresTextTimesStore);
    onTz = await startTestApp(postgresStore);
  });
  afterAll(async () => {
    await onText?.close();
    await onTz?.close();
  });

  it('keeps them as timestamptz, and the service reads the type from the store', async () => {
    const { rows } = await sql<{ table_name: string; data_type: string }>`
      select table_name, data_type from information_schema.columns
      where table_schema = current_schema() and column_name in ('decided_at', 'last_decided_at')
        and table_name in ('decisions', 'customer_template_states', 'customer_version_states')
      order by table_name`.execute(onTz.db);
    expect(rows).toEqual([
      { table_name: 'customer_template_states', data_type: 'timestamp with time zone' },
      { table_name: 'customer_version_states', data_type: 'timestamp with time zone' },
      { table_name: 'decisions', data_type: 'timestamp with time zone' },
    ]);
    expect(await resolveTimeType(onTz.db)).toBe('timestamptz');
    expect(await resolveTimeType(onText.db)).toBe('text');
  });

  it('reads a timestamptz as ISO text in UTC whatever the session time zone', async () => {
    await onTz.db.connection().execute(async (connection) => {
      await sql`set time zone 'Asia/Bangkok'`.execute(connection);
      const { rows } = await sql<{ at: unknown; late: unknown }>`
        select '2026-01-31T12:00:00.5Z'::timestamptz as at,
          '2026-12-31T23:59:59.999Z'::timestamptz as late`.execute(connection);
      await sql`reset time zone`.execute(connection);
      expect(rows).toEqual([{ at: '2026-01-31T12:00:00.500Z', late: '2026-12-31T23:59:59.999Z' }]);
    });
  });

  it('a scripted session answers byte for byte alike on both; receipts verify, the audit is clean; the records read again alike', async () => {
    const text = await session(onText);
    const tz = await session(onTz);
    expect(tz.answers).toEqual(text.answers);
    expect(text.answers.filter((line) => line.startsWith('5'))).toEqual([]);
    expect(tz.receipts).toEqual([true, true]);
    expect(tz.audit).toMatchObject({ ok: true, findings: [] });
    const now = new Date().toISOString();
    const again = async (t: TestApp, s: typeof text) =>
      placeheld((await reads(t, s, now)).map((line) => line.replaceAll(s.code, '<code>')));
    expect(await again(onTz, tz)).toEqual(await again(onText, text));
    // The decisions' times as each store answers them are the ones it recorded.
    const stored = async (t: TestApp, tenantId: string) =>
      (
        await t.db
          .selectFrom('decisions')
          .select('decided_at')
          .where('tenant_id', '=', tenantId)
          .orderBy('seq')
          .execute()
      ).map((row) => row.decided_at);
    const historyOf = async (customer: string) =>
      json(
        await onTz.app.inject({
          method: 'GET',
          url: `/api/v1/customers/${customer}/consents?limit=50`,
          headers: tz.headers,
        }),
      ).data.history as { decided_at: string }[];
    const history = [...(await historyOf('ann')), ...(await historyOf('bob'))];
    expect(history.map((h) => h.decided_at).sort()).toEqual(
      [...(await stored(onTz, tz.tenantId))].sort(),
    );
    expect(history.every((h) => isoTime.test(h.decided_at))).toBe(true);
  });

  it('bounds at the edges of the years answer alike: as-of and bulk status in the year 0 and 9999, a cursor of no real time refused', async () => {
    const answers = async (t: TestApp) => {
      const s = await session(t);
      const call = (method: 'GET' | 'POST', url: string, payload?: unknown) =>
        t.app.inject({
          method,
          url,
          headers: { ...s.headers, 'content-type': 'application/json' },
          ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
        });
      const asOf = (at: string) =>
        call(
          'GET',
          `/api/v1/customers/ann/consents/templates/${s.code}/as-of?at=${encodeURIComponent(at)}`,
        );
      const status = (at: string) =>
        call('POST', '/api/v1/consents/status', {
          template_code: s.code,
          customer_ids: ['ann', 'bob'],
          at,
        });
      const page = (cursor: string) =>
        call('GET', `/api/v1/customers/ann/consents?limit=1&cursor=${cursor}`);
      const id = crypto.randomUUID();
      const all = [
        await asOf('0000-01-01T00:00:00.000Z'),
        await asOf('0000-12-31T23:59:59.999Z'),
        await asOf('9999-12-31T23:59:59.999Z'),
        await status('0000-01-01T00:00:00Z'),
        await status('9999-12-31T23:59:59.999Z'),
        await page(cursorOf(['2026-13-01T00:00:00.000Z', id])),
        await page(cursorOf(['2026-02-30T00:00:00.000Z', id])),
        await page(cursorOf(['0000-06-01T00:00:00.000Z', id])),
        await page(cursorOf(['0001-01-01T00:00:00.000Z', id])),
      ];
      return placeheld(
        all.map((r) =>
          `${r.statusCode} ${r.body}`
            .replaceAll(s.code, '<code>')
            .replace(/,"checkpoint":\{"origin":[^{}]*\}(?=\}\}$)/, ''),
        ),
      );
    };
    const text = await answers(onText);
    const tz = await answers(onTz);
    expect(tz).toEqual(text);
    expect(text.map((line) => line.slice(0, 3))).toEqual([
      '200',
      '200',
      '200',
      '200',
      '200',
      '400',
      '400',
      '400',
      '200',
    ]);
    // Nothing decided by the year 0; everything by the year 9999.
    expect(JSON.parse(text[0]!.slice(4)).data.decision).toBeNull();
    expect(JSON.parse(text[2]!.slice(4)).data.decision).not.toBeNull();
    expect(text[5]).toContain('"querystring.cursor"');
    // A page after the year 1 is empty: every decision is later.
    expect(JSON.parse(text[8]!.slice(4)).data.history).toEqual([]);
  });

  it('counts decisions per day and walks the lapses from the first alike', async () => {
    const counted = async (t: TestApp) => {
      const s = await session(t);
      const template = await t.db
        .selectFrom('templates')
        .select('id')
        .where('tenant_id', '=', s.tenantId)
        .where('code', '=', s.code)
        .executeTakeFirstOrThrow();
      const today = new Date().toISOString().slice(0, 10);
      const perDay = await countDecisionsPerDay(t.db, s.tenantId, '0000-01-01T00:00:00.000Z');
      const walk = await findGivenBetween(t.db, {
        tenantId: s.tenantId,
        templateId: template.id,
        after: { at: '', id: '' },
        upTo: '9999-12-31T23:59:59.999Z',
        limit: 100,
      });
      return {
        perDay: perDay
          .map((row) => ({ day: row.day === today, decision: row.decision, n: Number(row.count) }))
          .sort((x, y) => x.decision.localeCompare(y.decision)),
        walked: walk.length,
        inOrder: walk.every((row, i) => i === 0 || walk[i - 1]!.decided_at <= row.decided_at),
      };
    };
    const text = await counted(onText);
    expect(await counted(onTz)).toEqual(text);
    // The session's decisions, all made today: ann two `given` (the second a re-consent
    // refused as a repeat), then `reject`; bob `withdraw` refused, then `given`.
    expect(text.perDay.every((row) => row.day)).toBe(true);
    expect(text.walked).toBeGreaterThan(0);
    expect(text.inOrder).toBe(true);
  });
});

/** The type of each decision time column, by table. */
async function timeColumnTypes(db: Db): Promise<Record<string, string>> {
  const { rows } = await sql<{ table_name: string; data_type: string }>`
    select table_name, data_type from information_schema.columns
    where table_schema = current_schema() and column_name in ('decided_at', 'last_decided_at')
      and table_name in ('decisions', 'customer_template_states', 'customer_version_states')`.execute(
    db,
  );
  return Object.fromEntries(rows.map((row) => [row.table_name, row.data_type]));
}

const allText = {
  decisions: 'text',
  customer_template_states: 'text',
  customer_version_states: 'text',
};

describe('migration 0061 on a PostgreSQL store with records in it', () => {
  it('makes the decision times timestamptz; the same reads answer the same bytes, the receipts are of the same leaves and verify, the audit is clean', async () => {
    // The store as 0.9.0 leaves it: its times text (0061 recorded as applied, so that the test
    // app, which migrates on its start, leaves them so while it records).
    const created = await postgresTextTimesStore.createMigrated!();
    const old = await startTestApp(existingStore(created.databaseUrl));
    const before = await session(old);
    const at = new Date().toISOString();
    const readsBefore = await reads(old, before, at);
    expect(await timeColumnTypes(old.db)).toEqual(allText);
    expect(await resolveTimeType(old.db)).toBe('text');
    await old.close();
    // Started again as the release with 0061, which its start applies.
    const handle = createDb(loadConfig({ DATABASE_URL: created.databaseUrl }));
    await sql`delete from kysely_migration
      where name >= '0061-decision-times-timestamptz'`.execute(handle);
    await handle.destroy();
    const next = await startTestApp(existingStore(created.databaseUrl, created.drop));
    try {
      expect(await timeColumnTypes(next.db)).toEqual({
        decisions: 'timestamp with time zone',
        customer_template_states: 'timestamp with time zone',
        customer_version_states: 'timestamp with time zone',
      });
      expect(await resolveTimeType(next.db)).toBe('timestamptz');
      expect(await findStoreSetting(next.db, 'oldest_release')).toBe('0.21.0');
      await expectSameRecords(next, before, at, readsBefore);
      // It records on, and runs again as a no-op.
      expect((await session(next)).answers).toEqual(before.answers);
      await decisionTimesTimestamptz.up(next.db as unknown as Kysely<unknown>);
      expect(await resolveTimeType(next.db)).toBe('timestamptz');
    } finally {
      await next.close();
    }
  });
});

describe('migration 0061 on a PostgreSQL store partitioned by time', () => {
  const bare = useBareStore(postgresStore);

  it('keeps the decision times text, and the store says why', async () => {
    const { db } = bare;
    await migrateBefore(db, '0061');
    const { tables } = await partitionByTime(db, timeTables(registry), 'month');
    expect(tables.length).toBeGreaterThan(0);
    expect(await migrateToLatest(db, testDataKey)).toEqual([
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
    expect(await timeColumnTypes(db)).toEqual(allText);
    expect(await findStoreSetting(db, 'decision_times_kept_as_text')).toBe(
      'decisions is partitioned by time on decided_at',
    );
    expect(await resolveTimeType(db)).toBe('text');
    expect(await findStoreSetting(db, 'oldest_release')).toBe('0.21.0');
  });
});

describe('migration 0061 on SQLite', () => {
  const bare = useBareStore(sqliteStore);

  it('leaves the schema as it was, and raises the oldest release', async () => {
    const { db } = bare;
    expect(await migratedKeepingSqliteSchema(db, '0061')).toEqual([
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
