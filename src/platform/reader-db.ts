import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import type { Database } from './database.js';
import type { Db } from './db.js';
import type { ReaderThreads } from './reader-threads.js';

/**
 * The store as a read sees it on an SQLite file's reader threads: each statement runs on the
 * least busy thread (`reader-threads.ts`), so a read that waits for the disk holds up no other
 * request. For the reads that may lag (`ReadOn`: a customer's history, as-of, bulk status,
 * exports, the back-office's lists), which on PostgreSQL go to replicas. Reads only, one
 * statement at a time: no transaction, no stream.
 */
export function readerDb(readers: ReaderThreads): Db {
  const connection: DatabaseConnection = {
    // Rows cross from the thread by structured clone: no read asks for a blob (the log's leaves,
    // which SQLite keeps as bytes, are read as hex; a sealed value held as bytes is made base64
    // in the thread, sqlite-blobs.ts), so every value arrives as the main connection would
    // answer it.
    executeQuery: <R>(query: CompiledQuery) => readers.run<R>(query as CompiledQuery<R>),
    // biome-ignore lint/correctness/useYield: a reader thread answers whole results only.
    async *streamQuery() {
      throw new Error('a read on the reader threads is not streamed');
    },
  };
  const unsupported = async () => {
    throw new Error('a read on the reader threads runs outside a transaction');
  };
  const driver: Driver = {
    init: async () => {},
    acquireConnection: async () => connection,
    beginTransaction: unsupported,
    commitTransaction: unsupported,
    rollbackTransaction: unsupported,
    releaseConnection: async () => {},
    destroy: async () => {},
  };
  return new Kysely<Database>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => driver,
      createIntrospector: (db) => new SqliteIntrospector(db),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  });
}
