import { checkSigningKey } from '../decision-log/index.js';
import type { Config } from '../platform/config.js';
import { loadDataKeyFor } from '../platform/data-key.js';
import { createDb, type Db } from '../platform/db.js';
import { checkReachable, migrateToLatest, migrationChecks } from '../platform/migrate.js';
import { createVault, type SubjectVault } from '../subjects/index.js';
import type { Commands } from './command.js';

/**
 * Opens the store of DATABASE_URL, reads the data key (refusing, before writing a key file, a
 * store sealed with a key that is not where the settings say), applies the pending migrations
 * (unless told not to), runs `work` with it and the customers' vault, and closes it.
 */
export async function withDb(
  config: Config,
  /** Where a key file made now is reported. */
  warn: (text: string) => void,
  work: (db: Db, vault: SubjectVault) => Promise<void>,
  migrateFirst = true,
): Promise<void> {
  const db = createDb(config);
  try {
    await checkReachable(db);
    // A key file is made only for a store without a key yet (`loadDataKeyFor`).
    const dataKey = await loadDataKeyFor(db, config, (details, message) =>
      warn(`${message}: ${details.file}\n`),
    );
    if (migrateFirst) {
      await migrateToLatest(db, dataKey, await kindMigrations(), migrationChecks(config));
    }
    await work(db, createVault(dataKey));
  } finally {
    await db.destroy();
  }
}

/** The kinds of record's own migrations (none of the service's kinds has any today). */
async function kindMigrations() {
  return (await import('../app/kinds.js')).registry.migrations;
}

/** The `migrate` command (a group of the command line's table). */
export const storeCommands: Commands = {
  migrate: {
    options: [],
    migratesItself: true,
    run: async (db, _o, config, vault, registry) => {
      // As `serve` does: the signing key is checked before the schema changes.
      await checkSigningKey(db, config, {
        warn: (details, message) => process.stderr.write(`${message}: ${details.file}\n`),
      });
      return {
        applied: await migrateToLatest(
          db,
          vault.dataKey,
          registry.migrations,
          migrationChecks(config),
        ),
      };
    },
  },
};
