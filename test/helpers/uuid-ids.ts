import { sql } from 'kysely';
import { loadConfig } from '../../src/platform/config.js';
import { createDb } from '../../src/platform/db.js';
import { migrateBefore } from './schema-history.js';
import { postgresDatabase, type TestStore } from './stores.js';

/**
 * A PostgreSQL store as release 0.6.0 left it, its ids text: every migration before 0058, which
 * makes them `uuid`, and 0058 recorded as applied, as it is on a store it kept as text (one that
 * holds an id that is no UUID). The service runs on it as on the `uuid` ids every other test's
 * store has; `platform/uuid-ids.test.ts` compares the two, and migrates one.
 */
export const postgresTextIdsStore: TestStore = {
  name: 'postgres',
  create: () => postgresDatabase(),
  async createMigrated() {
    const created = await postgresDatabase();
    const db = createDb(loadConfig({ DATABASE_URL: created.databaseUrl }));
    try {
      await migrateBefore(db, '0058');
      await sql`insert into kysely_migration (name, timestamp)
        values ('0058-uuid-ids', ${new Date().toISOString()})`.execute(db);
    } finally {
      await db.destroy();
    }
    return created;
  },
};

/** A store that already exists, for a test app to start on again (a restart, an upgrade). */
export function existingStore(
  databaseUrl: string,
  drop: () => Promise<void> = async () => {},
  name: TestStore['name'] = 'postgres',
): TestStore {
  return { name, create: async () => ({ databaseUrl, drop }) };
}
