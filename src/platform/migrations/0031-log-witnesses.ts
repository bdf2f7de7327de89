import type { Kysely } from 'kysely';

/**
 * What witnesses and time-stamping authorities said of the decision log's checkpoints
 * (docs/witnesses.md): `tlog_witness_state`, the size each witness last cosigned of each log;
 * `tlog_cosignatures`, their cosignature lines by checkpoint; `tlog_timestamps`, the RFC 3161
 * tokens of timestamped checkpoints. Adds tables only: the release before runs on.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('tlog_witness_state')
    .addColumn('log_id', 'text', (c) => c.notNull())
    .addColumn('witness', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('tlog_witness_state_pk', ['log_id', 'witness'])
    .execute();
  await db.schema
    .createTable('tlog_cosignatures')
    .addColumn('log_id', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('witness', 'text', (c) => c.notNull())
    .addColumn('line', 'text', (c) => c.notNull())
    .addColumn('cosigned_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('tlog_cosignatures_pk', ['log_id', 'size', 'witness'])
    .execute();
  await db.schema
    .createTable('tlog_timestamps')
    .addColumn('log_id', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('tsa', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('gen_time', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('tlog_timestamps_pk', ['log_id', 'size', 'tsa'])
    .execute();
}
