/**
 * A start on a store whose migrations are all applied (every start but an upgrade's) reads the
 * store's record of them and stops there (docs/upgrades.md, "What a start does to the store"):
 * it does not run Kysely's migrator, which would take the migrations' lock. While another
 * session holds that lock's table, such a start still goes through; with a migration pending,
 * it waits for it.
 */
import { sql } from 'kysely';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { loadConfig } from '../../src/platform/config.js';
import { createDb, type Db } from '../../src/platform/db.js';
import { migrateToLatest } from '../../src/platform/migrate.js';
import { testDataKey } from '../helpers/app.js';
import { postgresStore } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';

describe('a start with no migration pending, on PostgreSQL', () => {
  let db: Db;
  let holder: pg.Client;
  let drop: () => Promise<void>;
  beforeEach(async () => {
    const created = await postgresStore.createMigrated?.();
    if (!created) throw new Error('the PostgreSQL store makes no migrated copies');
    drop = created.drop;
    // A statement that waits on a lock fails after the timeout instead of waiting on.
    db = createDb(
      loadConfig({
        DATABASE_URL: created.databaseUrl,
        DATABASE_STATEMENT_TIMEOUT_MS: String(budget(300)),
      }),
    );
    expect(await migrateToLatest(db, testDataKey, registry.migrations)).toEqual([]);
    // Another session holds the migrations' lock table, as an instance applying them does.
    holder = new pg.Client({ connectionString: created.databaseUrl });
    await holder.connect();
    await holder.query('begin');
    await holder.query('lock table kysely_migration_lock in access exclusive mode');
  });
  afterEach(async () => {
    await holder.query('rollback');
    await holder.end();
    await db.destroy();
    await drop();
  });

  it('goes through without the migrations lock', async () => {
    expect(await migrateToLatest(db, testDataKey, registry.migrations)).toEqual([]);
  });

  it('waits for the lock when a migration is pending', async () => {
    // The kinds' migrations too, as the service passes them (the template has them applied):
    // without them, any of theirs would make the store look migrated by a newer release.
    const pending = {
      ...registry.migrations,
      '9999-pending': {
        async up() {},
      },
    };
    await expect(migrateToLatest(db, testDataKey, pending)).rejects.toThrow(/statement timeout/);
    await holder.query('rollback');
    await holder.query('begin');
    expect(await migrateToLatest(db, testDataKey, pending)).toEqual(['9999-pending']);
    const { rows } = await sql<{
      name: string;
    }>`select name from kysely_migration where name = '9999-pending'`.execute(db);
    expect(rows).toEqual([{ name: '9999-pending' }]);
  });
});
