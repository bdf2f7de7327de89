import { Kysely } from 'kysely';
import { createSqliteDialect } from '../platform/sqlite.js';
import type { WitnessDatabase, WitnessDb } from './table.js';

/**
 * Opens (and on first use creates) the witness's store. Its two tables never change shape, so
 * they are made here rather than by the service's migrations, which the witness does not run.
 * Transactions start with `BEGIN IMMEDIATE` (platform/sqlite.ts): a check of a log's size and
 * the move to the new one happen under the write lock, even with two processes on the file.
 */
export async function openWitnessStore(path: string, busyTimeoutMs: number): Promise<WitnessDb> {
  const db = new Kysely<WitnessDatabase>({ dialect: createSqliteDialect(path, busyTimeoutMs) });
  await db.schema
    .createTable('witness_logs')
    .ifNotExists()
    .addColumn('origin', 'text', (c) => c.primaryKey())
    .addColumn('origin_hash', 'text', (c) => c.notNull().unique())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('root', 'text', (c) => c.notNull())
    .addColumn('checkpoint', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('witness_conflicts')
    .ifNotExists()
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addColumn('known_size', 'integer', (c) => c.notNull())
    .addColumn('known_checkpoint', 'text', (c) => c.notNull())
    .addColumn('request', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('witness_conflicts_origin')
    .ifNotExists()
    .on('witness_conflicts')
    .columns(['origin', 'received_at'])
    .execute();
  return db;
}
