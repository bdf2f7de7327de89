import { sql } from 'kysely';
import { loadConfig } from '../../src/platform/config.js';
import { createDb, type Executor } from '../../src/platform/db.js';
import { forgetIdType } from '../../src/platform/id-type.js';
import { postgresStore, type TestStore } from './stores.js';

/** The PostgreSQL columns of the decisions' times (`TimeType`, src/platform/id-type.ts). */
export const decisionTimeColumns = [
  ['decisions', 'decided_at'],
  ['customer_template_states', 'last_decided_at'],
  ['customer_version_states', 'last_decided_at'],
] as const;

/**
 * Makes a PostgreSQL store's decision times `timestamptz`, their rows and keys with them, as a
 * store that keeps them so has them: the service reads and writes either form alike.
 */
export async function decisionTimesAsTimestamptz(db: Executor): Promise<void> {
  for (const [table, column] of decisionTimeColumns) {
    await sql`alter table ${sql.table(table)} alter column ${sql.ref(column)}
      type timestamptz using ${sql.ref(column)}::timestamptz`.execute(db);
  }
  forgetIdType(db);
}

/** A copy of the tests' PostgreSQL template whose decision times are `timestamptz`. */
export const postgresTimestamptzStore: TestStore = {
  name: 'postgres',
  async createMigrated() {
    const created = await postgresStore.createMigrated!();
    const db = createDb(loadConfig({ DATABASE_URL: created.databaseUrl }));
    try {
      await decisionTimesAsTimestamptz(db);
    } finally {
      await db.destroy();
    }
    return created;
  },
  create: () => postgresStore.create(),
};
