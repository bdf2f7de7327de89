import { type Kysely, sql } from 'kysely';

/**
 * `tlog_nodes` keeps the log's subtrees of 16 leaves or more only (level 4 up): from 0.3.0 on,
 * every proof recomputes the smaller ones from the leaves (docs/proof.md, "What the store
 * keeps"), so the rows below, 15 of every 16 of the table, are removed. The rows kept (one per 8
 * leaves) are set aside, the table made again as 0003 made it and the rows put back: that gives
 * the space back at once on PostgreSQL, where a `DELETE` would leave it to a `VACUUM FULL`, and
 * keeps the table's and its key's names.
 */
export const oldestRelease = '0.3.0';

export async function up(db: Kysely<unknown>): Promise<void> {
  await nodesTable(db, 'tlog_nodes_kept').execute();
  await sql`insert into tlog_nodes_kept (log_id, level, idx, hash)
    select log_id, level, idx, hash from tlog_nodes where level >= 4`.execute(db);
  await db.schema.dropTable('tlog_nodes').execute();
  await nodesTable(db, 'tlog_nodes')
    .addPrimaryKeyConstraint('tlog_nodes_pk', ['log_id', 'level', 'idx'])
    .execute();
  await sql`insert into tlog_nodes (log_id, level, idx, hash)
    select log_id, level, idx, hash from tlog_nodes_kept`.execute(db);
  await db.schema.dropTable('tlog_nodes_kept').execute();
}

/** The columns of `tlog_nodes` as 0003 made them. */
function nodesTable(db: Kysely<unknown>, name: string) {
  return db.schema
    .createTable(name)
    .addColumn('log_id', 'text', (c) => c.notNull())
    .addColumn('level', 'integer', (c) => c.notNull())
    .addColumn('idx', 'integer', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull());
}
