import { Worker } from 'node:worker_threads';
import type { CompiledQuery, QueryResult } from 'kysely';
import type { Config } from './config.js';
import { type QueryObserver, readerStoppedCode } from './db.js';
import { isPostgresUrl } from './postgres.js';
import type { FromReader, ReaderData, ReadRequest, ReadResult, ToReader } from './reader-wire.js';
import { sqlitePath } from './sqlite.js';
import { threadModules, workerArguments } from './thread-entry.js';
import { fromWire, toWire } from './writer-wire.js';

/** Reads of an SQLite file run on threads of their own, so the event loop never waits on them. */
export interface ReaderThreads {
  /** Runs one read on the least busy reader thread; its rows come back by structured clone. */
  run<O>(query: CompiledQuery<O>): Promise<QueryResult<O>>;
  /** How many reads each thread holds now (the tests look). */
  inFlight(): number[];
  /** Lets the reads already sent finish, then stops the threads. */
  close(): Promise<void>;
}

const entry = new URL(
  `./reader-loop${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`,
  import.meta.url,
);

/**
 * The store's reader threads: on an SQLite file, `SQLITE_READER_THREADS` of them; none on
 * PostgreSQL (its reads wait on a socket, not the event loop), on an SQLite store in memory (no
 * other connection can see it), or when the setting is 0.
 */
export function readerThreadsFor(
  config: Pick<Config, 'databaseUrl' | 'sqliteBusyTimeoutMs' | 'sqliteReaderThreads'>,
  onQuery?: QueryObserver,
): ReaderThreads | undefined {
  if (isPostgresUrl(config.databaseUrl) || config.sqliteReaderThreads === 0) return undefined;
  const path = sqlitePath(config.databaseUrl);
  if (path === ':memory:') return undefined;
  return startReaderThreads(path, config.sqliteReaderThreads, config.sqliteBusyTimeoutMs, onQuery);
}

/**
 * `count` reader threads on the SQLite file at `path`, each with a connection of its own (WAL
 * lets readers run beside the writer and each other). A read goes to the thread holding the
 * fewest, so one slow read (a page the disk has to bring, a large scan) holds up only the reads
 * queued behind it on its thread, never the event loop or the other threads. The reads sent in
 * the same turn of the event loop go to a thread as one message. A thread starts with its first
 * read, and again after it stopped: the reads it held fail as a store fault (`503 1009`).
 * `onQuery` is told of each read once answered, timed on its thread, as the store's observer is
 * of the main connection's statements (the metrics' query times, the traces' spans).
 */
export function startReaderThreads(
  path: string,
  count: number,
  busyTimeoutMs: number,
  onQuery?: QueryObserver,
): ReaderThreads {
  const data: ReaderData = { path, busyTimeoutMs };
  const readers = Array.from({ length: count }, () => reader(data, onQuery));
  let next = 0;
  return {
    run<O>(query: CompiledQuery<O>) {
      // The least busy thread; ties go round, so an idle pool spreads its reads too.
      let chosen = readers[next % readers.length] as Reader;
      for (const candidate of readers) {
        if (candidate.held() < chosen.held()) chosen = candidate;
      }
      next += 1;
      return chosen.run(query) as Promise<QueryResult<O>>;
    },
    inFlight: () => readers.map((one) => one.held()),
    async close() {
      await Promise.all(readers.map((one) => one.close()));
    },
  };
}

interface Reader {
  run(query: CompiledQuery<unknown>): Promise<QueryResult<unknown>>;
  held(): number;
  close(): Promise<void>;
}

function reader(data: ReaderData, onQuery: QueryObserver | undefined): Reader {
  const waiting = new Map<
    number,
    {
      query: CompiledQuery<unknown>;
      resolve: (value: QueryResult<unknown>) => void;
      reject: (e: Error) => void;
    }
  >();
  let worker: Worker | undefined;
  let exited: Promise<void> = Promise.resolve();
  let outbox: ReadRequest[] = [];
  let nextId = 1;

  function settle(result: ReadResult): void {
    const pending = waiting.get(result.id);
    if (!pending) return;
    waiting.delete(result.id);
    const queryDurationMillis = result.durationMs;
    if (result.ok) {
      onQuery?.({ level: 'query', query: pending.query, queryDurationMillis });
      pending.resolve({ rows: result.value as unknown[] });
      return;
    }
    const error = fromWire(result.error);
    onQuery?.({ level: 'error', query: pending.query, queryDurationMillis, error });
    pending.reject(error);
  }

  function start(): Worker {
    const [module = entry.href] = threadModules([entry.href]);
    const started = new Worker(...workerArguments(new URL(module), data));
    started.on('message', (message: FromReader) => {
      for (const result of message.results) settle(result);
    });
    let failure: Error | undefined;
    started.on('error', (error) => {
      failure = error;
    });
    exited = new Promise((resolve) => {
      started.on('exit', () => {
        if (worker === started) worker = undefined;
        const message = `a store reader stopped${failure ? `: ${failure.message}` : ''}`;
        for (const id of [...waiting.keys()]) {
          settle({ id, ok: false, error: { message, code: readerStoppedCode }, durationMs: 0 });
        }
        resolve();
      });
    });
    // A thread waiting for reads does not keep the process alive.
    started.unref();
    return started;
  }

  function flush(): void {
    if (outbox.length === 0) return;
    const reads = outbox;
    outbox = [];
    try {
      worker ??= start();
      worker.postMessage({ type: 'reads', reads } satisfies ToReader);
    } catch (error) {
      // A thread that cannot start, or a value that cannot cross: these reads fail, not the process.
      for (const { id } of reads) {
        settle({ id, ok: false, error: toWire(error), durationMs: 0 });
      }
    }
  }

  return {
    run(query) {
      const id = nextId++;
      if (outbox.length === 0) setImmediate(flush);
      outbox.push({ id, sql: query.sql, parameters: query.parameters });
      return new Promise((resolve, reject) => {
        waiting.set(id, { query, resolve, reject });
      });
    },
    held: () => waiting.size,
    async close() {
      flush();
      if (!worker) return;
      worker.postMessage({ type: 'close' } satisfies ToReader);
      await exited;
    },
  };
}
