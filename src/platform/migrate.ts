import { type Migration, type MigrationProvider, type MigrationResultSet, Migrator } from 'kysely';
import type { Db } from './db.js';
import * as initial from './migrations/0001-initial.js';
import * as backoffice from './migrations/0002-backoffice.js';
import * as decisionLog from './migrations/0003-decision-log.js';
import * as customerHistory from './migrations/0004-customer-history.js';
import * as logAudits from './migrations/0005-log-audits.js';

/** Migrations are listed in code, so the compiled build and the test runner load the same set. */
const migrations: Record<string, Migration> = {
  '0001-initial': initial,
  '0002-backoffice': backoffice,
  '0003-decision-log': decisionLog,
  '0004-customer-history': customerHistory,
  '0005-log-audits': logAudits,
};

const provider: MigrationProvider = {
  getMigrations: async () => migrations,
};

/** Applies every pending migration; throws if one fails (the store is left at the last good one). */
export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db, provider });
  const result: MigrationResultSet = await migrator.migrateToLatest();
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName;
    const reason = result.error instanceof Error ? result.error.message : String(result.error);
    const message = failed
      ? `Migration ${failed} failed: ${reason}`
      : `Cannot bring the store's schema up to date (is the store reachable?): ${reason}`;
    throw new Error(message, { cause: result.error });
  }
  return (result.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
