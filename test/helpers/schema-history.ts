import { Migrator, type RawBuilder, sql } from 'kysely';
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
 * Takes migrations 0059 and 0060 back off a store: its decisions' `content_sha256` required
 * again and filled with their versions' hashes, as 0.7.0 wrote every decision's (and its cookie
 * choices', `asBefore0060`); both pending.
 */
export async function asBefore0059(db: Db): Promise<void> {
  await asBefore0060(db);
  await requiredAgain(
    db,
    '0059-decision-content-hash-optional',
    'decisions',
    sql`update decisions set content_sha256 = (select v.content_sha256
      from template_versions as v
      where v.tenant_id = decisions.tenant_id and v.id = decisions.consent_version_id)`,
  );
}

/**
 * Takes migration 0060 back off a store: its cookie choices' `content_sha256` required again and
 * filled with their configurations' hashes, as 0.8.0 wrote every choice's; 0060 pending.
 */
export async function asBefore0060(db: Db): Promise<void> {
  await requiredAgain(
    db,
    '0060-cookie-choice-content-hash-optional',
    'cookie_decisions',
    sql`update cookie_decisions set content_sha256 = (select c.content_sha256
      from cookie_configurations as c
      where c.tenant_id = cookie_decisions.tenant_id and c.id = cookie_decisions.configuration_id)`,
  );
}

/** A table's `content_sha256` required again and filled by `fill`; the migration pending. */
async function requiredAgain(
  db: Db,
  migration: string,
  table: string,
  fill: RawBuilder<unknown>,
): Promise<void> {
  await sql`delete from kysely_migration where name = ${migration}`.execute(db);
  if (isPostgres(db)) {
    await fill.execute(db);
    await sql`alter table ${sql.table(table)} alter column content_sha256 set not null`.execute(db);
    return;
  }
  await sql`alter table ${sql.table(table)} drop column content_sha256`.execute(db);
  await sql`alter table ${sql.table(table)} add column content_sha256 text not null default ''`.execute(
    db,
  );
  await fill.execute(db);
}
