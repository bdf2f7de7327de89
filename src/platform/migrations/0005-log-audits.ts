import type { Kysely } from 'kysely';

/** The result of each audit of a decision log, so the back-office can show the last one. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('tlog_audits')
    .addColumn('log_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('ran_at', 'text', (c) => c.notNull())
    .addColumn('ran_by', 'text', (c) => c.notNull())
    .addColumn('ok', 'integer', (c) => c.notNull())
    .addColumn('entries', 'integer', (c) => c.notNull())
    .addColumn('checkpoints', 'integer', (c) => c.notNull())
    .addColumn('findings', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('tlog_audits_pk', ['log_id', 'id'])
    .execute();
  await db.schema
    .createIndex('tlog_audits_ran_at_idx')
    .on('tlog_audits')
    .columns(['log_id', 'ran_at'])
    .execute();
}
