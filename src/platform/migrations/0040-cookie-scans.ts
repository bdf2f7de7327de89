import { type Kysely, sql } from 'kysely';

/**
 * The cookie scanner (docs/cookie-scans.md): `cookie_scans`, one row per scan of a system, its
 * findings kept as JSON once done; at most one `running` a system (a unique partial index, so
 * two instances cannot both start one). `cookie_scan_schedules`: a system scanned every so many
 * days, the next one due at `next_at`. And `cookie_database`, the copy of the Open Cookie
 * Database an operator refreshed from a file, which wins over the one pinned with the release.
 * Adds tables only: the release before runs on.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('cookie_scans')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('system_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('urls', 'text', (c) => c.notNull())
    .addColumn('pages_limit', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .addColumn('violations', 'integer', (c) => c.notNull())
    .addColumn('changes', 'integer', (c) => c.notNull())
    .addColumn('result', 'text')
    .addColumn('error', 'text')
    .addPrimaryKeyConstraint('cookie_scans_pk', ['tenant_id', 'id'])
    .execute();
  await db.schema
    .createIndex('cookie_scans_by_system')
    .on('cookie_scans')
    .columns(['tenant_id', 'system_id', 'started_at'])
    .execute();
  await db.schema
    .createIndex('cookie_scans_one_running')
    .on('cookie_scans')
    .columns(['tenant_id', 'system_id'])
    .unique()
    .where(sql.ref('status'), '=', 'running')
    .execute();
  await db.schema
    .createTable('cookie_scan_schedules')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('system_id', 'text', (c) => c.notNull())
    .addColumn('every_days', 'integer', (c) => c.notNull())
    .addColumn('pages', 'integer', (c) => c.notNull())
    .addColumn('next_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('cookie_scan_schedules_pk', ['tenant_id', 'system_id'])
    .execute();
  await db.schema
    .createIndex('cookie_scan_schedules_due')
    .on('cookie_scan_schedules')
    .column('next_at')
    .execute();
  await db.schema
    .createTable('cookie_database')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('csv', 'text', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('entries', 'integer', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('refreshed_at', 'text', (c) => c.notNull())
    .execute();
}
