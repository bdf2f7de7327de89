import type { Kysely } from 'kysely';

/**
 * `tlog_epochs`: the epochs a tenant's log was started again in after a restore, each with its
 * new origin and the signed statement that links it to the checkpoints signed before
 * (docs/proof.md, "Restores and log epochs"). Adds a table only: the release before runs on.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('tlog_epochs')
    .addColumn('log_id', 'text', (c) => c.notNull())
    .addColumn('epoch', 'integer', (c) => c.notNull())
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('previous_origin', 'text', (c) => c.notNull())
    .addColumn('statement', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('tlog_epochs_pk', ['log_id', 'epoch'])
    .execute();
}
