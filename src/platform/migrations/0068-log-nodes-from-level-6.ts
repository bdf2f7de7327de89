import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * `tlog_nodes` keeps the log's subtrees of 64 leaves or more only (level 6 up): since 0.15.0
 * every proof recomputes the smaller ones from the leaves of one run of 64 entries (docs/proof.md,
 * "What the store keeps"), so the rows of levels 4 and 5, 3 of every 4 of the table, are removed
 * (one row per 32 leaves is kept, instead of one per 8). 0.14.0 read those rows, so it no longer
 * runs on the store (`oldestRelease`); a 0.15.0 instance running beside still writes them, and
 * those are right, checked by `audit`, and left.
 *
 * On PostgreSQL the rows kept are set aside and the table emptied by `TRUNCATE`, which gives its
 * space back at once (a `DELETE` would leave it to a `VACUUM FULL`), then put back; its name,
 * key and grants stay. SQLite deletes them, and reuses their pages.
 */
export const oldestRelease = '0.15.0';

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) {
    await sql`delete from tlog_nodes where level < 6`.execute(db);
    return;
  }
  await sql`create temporary table tlog_nodes_kept as
    select * from tlog_nodes where level >= 6`.execute(db);
  await sql`truncate tlog_nodes`.execute(db);
  await sql`insert into tlog_nodes select * from tlog_nodes_kept`.execute(db);
  await sql`drop table tlog_nodes_kept`.execute(db);
}
