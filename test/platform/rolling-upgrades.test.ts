/**
 * A release on a store a newer release migrated (a rolling upgrade, docs/upgrades.md): it runs on
 * that schema when it knows every migration before the newer ones and is not older than the
 * oldest release the store names; otherwise it refuses, naming the release to run, with nothing
 * changed. A migration that removes what earlier releases read raises that oldest release, in
 * its own transaction. (The previous release itself, built from its tag, is run on a store this
 * one migrated by test/e2e/previous-release.test.ts.)
 */
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/platform/config.js';
import { createDb, type Db } from '../../src/platform/db.js';
import { migrateToLatest, schemaAhead } from '../../src/platform/migrate.js';
import { findStoreSetting } from '../../src/platform/store-settings-repository.js';
import { serviceVersion } from '../../src/platform/version.js';
import { testDataKey } from '../helpers/app.js';
import { stores } from '../helpers/stores.js';

const applied = async (db: Db) =>
  (
    await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db)
  ).rows.map((row) => row.name);

/** What a newer release leaves: a migration this one does not know, and the table it made. */
async function migrateAsANewerRelease(db: Db, oldestRelease?: string) {
  await sql`create table from_a_newer_release (id text primary key)`.execute(db);
  await sql`insert into kysely_migration (name, timestamp)
    values ('9999-from-a-newer-release', '2026-11-29T00:00:00.000Z')`.execute(db);
  if (oldestRelease) {
    await sql`update store_settings set value = ${oldestRelease} where name = 'oldest_release'`.execute(
      db,
    );
  }
}

describe.each(stores)('a store migrated by a newer release on $name', (store) => {
  let db: Db;
  let drop: () => Promise<void>;
  beforeEach(async () => {
    const created = await (store.createMigrated ?? store.create).call(store);
    drop = created.drop;
    db = createDb(loadConfig({ DATABASE_URL: created.databaseUrl }));
    await migrateToLatest(db, testDataKey);
  });
  afterEach(async () => {
    await db.destroy();
    await drop();
  });

  it('is run on as it is when its newer migrations keep this release working', async () => {
    await migrateAsANewerRelease(db);
    const before = await applied(db);
    expect(await migrateToLatest(db, testDataKey)).toEqual([]);
    expect(await schemaAhead(db, testDataKey)).toEqual(['9999-from-a-newer-release']);
    expect(await applied(db)).toEqual(before);
  });

  it('is refused, naming the release to start, when it names a newer oldest release', async () => {
    await migrateAsANewerRelease(db, '99.0.0');
    const before = await applied(db);
    await expect(migrateToLatest(db, testDataKey)).rejects.toThrow(
      `This store was migrated by a newer release (9999-from-a-newer-release), whose schema releases older than 99.0.0 cannot run on; this is ${serviceVersion}. Start 99.0.0 or later, or restore the backup taken before the upgrade (docs/upgrades.md). Nothing was changed.`,
    );
    expect(await applied(db)).toEqual(before);
  });

  it('is refused when it lacks a migration this release has (another line of releases)', async () => {
    await migrateAsANewerRelease(db);
    await sql`delete from kysely_migration where name = '0029-lapse-progress'`.execute(db);
    await expect(migrateToLatest(db, testDataKey)).rejects.toThrow(
      /has migrations this release \(.*\) does not know \(9999-from-a-newer-release\) and lacks ones it has \(0029-lapse-progress\)/,
    );
  });

  it('a migration that removes what earlier releases read raises the oldest release, never lowers it', async () => {
    // Migration 0074 makes SQLite's ids bytes, which releases before 0.21.0 bind as text
    // (CHANGELOG.md).
    expect(await findStoreSetting(db, 'oldest_release')).toBe('0.21.0');
    const contracting = (release: string) => ({
      async up() {},
      oldestRelease: release,
    });
    await migrateToLatest(db, testDataKey, { '9998-contract': contracting('1.0.0') });
    expect(await findStoreSetting(db, 'oldest_release')).toBe('1.0.0');
    await migrateToLatest(db, testDataKey, {
      '9998-contract': contracting('1.0.0'),
      '9999-contract-less': contracting('0.3.0'),
    });
    expect(await findStoreSetting(db, 'oldest_release')).toBe('1.0.0');
    // A raise is rolled back with the migrations of its run when a later one fails.
    await expect(
      migrateToLatest(db, testDataKey, {
        '9998-contract': contracting('1.0.0'),
        '9999-contract-less': contracting('0.3.0'),
        '9999-zz-a-raises': contracting('1.1.0'),
        '9999-zz-b-fails': {
          async up() {
            throw new Error('no');
          },
        },
      }),
    ).rejects.toThrow('Migration 9999-zz-b-fails failed: no');
    expect(await findStoreSetting(db, 'oldest_release')).toBe('1.0.0');
  });
});
