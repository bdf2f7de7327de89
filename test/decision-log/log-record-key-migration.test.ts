import { createHash, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { timeTables } from '../../src/app/time-tables.js';
import { findEntriesByRecords, findEntryByRecord } from '../../src/decision-log/repository.js';
import { type Db, isPostgres } from '../../src/platform/db.js';
import { resolveLogKey } from '../../src/platform/log-key.js';
import { migrateToLatest } from '../../src/platform/migrate.js';
import { partitionByTime } from '../../src/platform/partitions.js';
import { testDataKey } from '../helpers/app.js';
import { type IndexShape, indexesOf, planWatcher } from '../helpers/indexes.js';
import { migrateBefore } from '../helpers/schema-history.js';
import { postgresStore, stores, useBareStore } from '../helpers/stores.js';

const migration = '0057-log-record-key-without-log';

/** `tlog_entries`' keys on PostgreSQL before 0057, and after it. */
const pk: IndexShape = { name: 'tlog_entries_pk', unique: true, columns: ['log_id', 'idx'] };
const recordKeyBefore: IndexShape = {
  name: 'tlog_entries_record_uq',
  unique: true,
  columns: ['log_id', 'record_id'],
};
const recordKeyAfter: IndexShape = {
  name: 'tlog_entries_record_uq',
  unique: true,
  columns: ['record_id'],
};

interface Entry {
  log_id: string;
  idx: number;
  record_id: string;
  leaf: string;
  integrated_at: string;
}

/** Two tenants' logs of 300 entries each, their records' ids random, as the integrator writes them. */
function entries(): Entry[] {
  const rows: Entry[] = [];
  for (const logId of [randomUUID(), randomUUID()]) {
    for (let idx = 0; idx < 300; idx += 1) {
      const recordId = randomUUID();
      rows.push({
        log_id: logId,
        idx,
        record_id: recordId,
        leaf: createHash('sha256').update(recordId).digest('hex'),
        integrated_at: new Date(Date.UTC(2026, 0, 1) + idx * 1000).toISOString(),
      });
    }
  }
  return rows;
}

/** A store of the release before 0057, with the entries of `entries` in its log. */
async function storeBefore0057(db: Db): Promise<Entry[]> {
  await migrateBefore(db, '0057');
  const written = entries();
  for (let at = 0; at < written.length; at += 100) {
    await db
      .insertInto('tlog_entries')
      .values(written.slice(at, at + 100))
      .execute();
  }
  // Each log's row, as its first append makes it.
  for (const logId of new Set(written.map((entry) => entry.log_id))) {
    await db
      .insertInto('tlog_logs')
      .values({
        log_id: logId,
        tenant_id: logId,
        origin: `example.com/${logId}`,
        verifier_key: 'example.com/log+00000000+AA==',
        created_at: '2026-01-01T00:00:00.000Z',
      })
      .execute();
  }
  return written;
}

/** The store as 0057 left it: every migration up to it, and none after. */
async function migrateThrough0057(db: Db): Promise<void> {
  await migrateBefore(db, '0058');
  const { rows } = await sql<{ name: string }>`select name from kysely_migration
    order by name desc limit 1`.execute(db);
  expect(rows).toEqual([{ name: migration }]);
}

const allEntries = async (db: Db) =>
  (await sql<Entry>`select * from tlog_entries order by log_id, idx`.execute(db)).rows;

describe.each(stores)('migration 0057, on $name', (store) => {
  const bare = useBareStore(store);

  it('keeps every entry; on PostgreSQL the log’s key by record no longer carries the log, and still holds; SQLite keeps its keys', async () => {
    const { db } = bare;
    const written = await storeBefore0057(db);
    const before = await allEntries(db);
    expect(before).toHaveLength(written.length);
    const keysBefore = await indexesOf(db, 'tlog_entries');
    if (isPostgres(db)) expect(keysBefore).toEqual([pk, recordKeyBefore]);

    await migrateThrough0057(db);

    expect(await allEntries(db)).toEqual(before);
    expect(await indexesOf(db, 'tlog_entries')).toEqual(
      isPostgres(db) ? [pk, recordKeyAfter] : keysBefore,
    );
    // The key still holds: a record is in the log once.
    const first = written[0] as Entry;
    await expect(
      db
        .insertInto('tlog_entries')
        .values({ ...first, idx: 300 })
        .execute(),
    ).rejects.toThrow(/unique|duplicate/i);
  });
});

describe('migration 0057, the reads of a record’s entry on PostgreSQL', () => {
  const bare = useBareStore(postgresStore);

  it('a record’s entry, and a batch of records’ entries, are found by the key by record', async () => {
    const { db } = bare;
    const written = await storeBefore0057(db);
    await migrateToLatest(db, testDataKey);
    await sql`analyze tlog_entries`.execute(db);
    const first = written[0] as Entry;
    const second = written[1] as Entry;

    const plans = planWatcher(db, bare.databaseUrl, ['tlog_entries_']);
    const { read, db: watched } = plans;
    try {
      // The store's log key is read once a handle, before its first read of the log.
      await resolveLogKey(watched);
      expect(await read(() => findEntryByRecord(watched, first.log_id, first.record_id))).toEqual([
        'tlog_entries_record_uq',
      ]);
      expect(
        await read(() =>
          findEntriesByRecords(watched, first.log_id, [first.record_id, second.record_id]),
        ),
      ).toEqual(['tlog_entries_record_uq']);
      // The log is still checked on the row: another tenant's log finds nothing.
      const other = written.at(-1) as Entry;
      expect(await findEntryByRecord(db, other.log_id, first.record_id)).toBeUndefined();
      expect(await findEntryByRecord(db, first.log_id, first.record_id)).toEqual({
        idx: 0,
        leaf: first.leaf,
        integrated_at: first.integrated_at,
      });
    } finally {
      await plans.destroy();
    }
  });
});

describe('migration 0057, on a PostgreSQL store partitioned by time', () => {
  const bare = useBareStore(postgresStore);

  it('gives the partitioned log the same key by record, plain, as a partitioned table holds it', async () => {
    const { db } = bare;
    await storeBefore0057(db);
    const before = await allEntries(db);
    await partitionByTime(db, timeTables(registry), 'month');
    expect(await indexesOf(db, 'tlog_entries')).toEqual([
      { ...pk, columns: ['log_id', 'idx', 'integrated_at'] },
      { ...recordKeyBefore, unique: false },
    ]);

    await migrateThrough0057(db);

    expect(await allEntries(db)).toEqual(before);
    expect(await indexesOf(db, 'tlog_entries')).toEqual([
      { ...pk, columns: ['log_id', 'idx', 'integrated_at'] },
      { ...recordKeyAfter, unique: false },
    ]);
  });
});
