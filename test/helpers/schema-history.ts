import { Migrator } from 'kysely';
import type { Db } from '../../src/platform/db.js';
import { migrations } from '../../src/platform/migrate.js';
import { testDataKey } from './app.js';

/**
 * Brings a store to the schema an earlier release left: every migration named before `first`
 * (`'0050'` for a store of the release before migration 0050), as `migrateToLatest` would have
 * run them then. The test then writes rows as that release did and migrates the rest.
 */
export async function migrateBefore(db: Db, first: string, dataKey = testDataKey): Promise<void> {
  const before = Object.fromEntries(
    Object.entries(migrations(dataKey)).filter(([name]) => name < first),
  );
  const migrator = new Migrator({ db, provider: { getMigrations: async () => before } });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error;
}
