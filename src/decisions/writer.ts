import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import type { Db, StoreSettings } from '../platform/db.js';
import { isPostgresUrl } from '../platform/postgres.js';
import { sqlitePath } from '../platform/sqlite.js';
import { createWriteQueue } from '../platform/write-queue.js';
import { startWriterThread } from '../platform/writer-thread.js';
import type { SubjectVault } from '../subjects/vault.js';
import {
  type DecisionAnswer,
  type DecisionJob,
  type DecisionWriter,
  writeDecision,
} from './idempotency.js';

/** What the writer thread is started with (see `writer-entry.ts`). */
export interface DecisionWriterData {
  store: StoreSettings;
  dataKey: Uint8Array;
}

export interface DecisionWriterHandle extends DecisionWriter {
  /** True while the store refuses writes (the health check). */
  failing(): boolean;
  /** Decisions committed, in how many commits. */
  stats(): { units: number; commits: number };
  /** Runs one statement on the connection that writes decisions (maintenance, fault drills). */
  execute(statement: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * The writer of decisions for this store.
 *
 * - An SQLite file: a thread of its own owns the write connection (`writer-entry.ts`); the
 *   decisions that arrive together share one transaction and one fsync, and the event loop never
 *   waits for the disk.
 * - PostgreSQL, or an SQLite store in memory (which another thread cannot open): a transaction
 *   per decision, on the service's own pool or connection.
 */
export function createDecisionWriter(
  store: StoreSettings,
  db: Db,
  vault: SubjectVault,
): DecisionWriterHandle {
  if (isPostgresUrl(store.databaseUrl) || sqlitePath(store.databaseUrl) === ':memory:') {
    const queue = createWriteQueue(db);
    return {
      write: (job) => queue.transaction((trx) => writeDecision(trx, vault, job)),
      failing: queue.failing,
      stats: queue.stats,
      execute: async (statement) => {
        await sql.raw(statement).execute(db);
      },
      close: async () => {},
    };
  }
  const { databaseUrl, sqliteBusyTimeoutMs, databasePoolSize } = store;
  const { databaseStatementTimeoutMs, databaseConnectTimeoutMs } = store;
  const data: DecisionWriterData = {
    store: {
      databaseUrl,
      sqliteBusyTimeoutMs,
      databasePoolSize,
      databaseStatementTimeoutMs,
      databaseConnectTimeoutMs,
    },
    dataKey: vault.dataKey,
  };
  // Beside this file: `.ts` from source, `.js` once built.
  const entry = new URL(
    `./writer-entry${extname(fileURLToPath(import.meta.url))}`,
    import.meta.url,
  );
  const thread = startWriterThread<DecisionJob, DecisionAnswer>(db, entry, data);
  return { ...thread, write: thread.submit };
}
