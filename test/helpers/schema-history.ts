import { Migrator, sql } from 'kysely';
import { type Db, isPostgres } from '../../src/platform/db.js';
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

/**
 * Takes migration 0059 back off a store: its decisions' `content_sha256` required again, filled
 * with `hash` (as 0.7.0 wrote every decision's), and 0059 pending.
 */
export async function asBefore0059(db: Db, hash: string): Promise<void> {
  await sql`delete from kysely_migration where name = '0059-decision-content-hash-optional'`.execute(
    db,
  );
  if (isPostgres(db)) {
    await sql`update decisions set content_sha256 = ${hash}`.execute(db);
    await sql`alter table decisions alter column content_sha256 set not null`.execute(db);
    return;
  }
  await sql`alter table decisions drop column content_sha256`.execute(db);
  await sql`alter table decisions add column content_sha256 text not null default ''`.execute(db);
  await sql`update decisions set content_sha256 = ${hash}`.execute(db);
}
