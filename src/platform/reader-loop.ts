/**
 * An SQLite reader thread (started by `reader-threads.ts`): a connection of its own on the
 * store's file, which only reads. It runs each message's reads in the order sent and answers
 * them in one message.
 */
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import type { FromReader, ReaderData, ReadResult, ToReader } from './reader-wire.js';
import { statementCache } from './sqlite-statements.js';
import { toWire } from './writer-wire.js';

const data = workerData as ReaderData;
const port = parentPort;
if (!port) throw new Error('reader-loop.ts runs as a worker thread');

const database = new SQLite(data.path, { timeout: data.busyTimeoutMs, fileMustExist: true });
// Reads only: a statement that would write fails here instead of taking the writer's lock.
database.pragma('query_only = ON');

/** Each statement text is prepared once, as on the main connection (`sqlite-statements.ts`). */
const statementFor = statementCache(database);

port.on('message', (message: ToReader) => {
  if (message.type === 'close') {
    database.close();
    port.close();
    return;
  }
  const results: ReadResult[] = message.reads.map(({ id, sql, parameters }) => {
    const start = performance.now();
    try {
      const value = statementFor(sql).all(parameters as unknown[]);
      return { id, ok: true, value, durationMs: performance.now() - start };
    } catch (error) {
      return { id, ok: false, error: toWire(error), durationMs: performance.now() - start };
    }
  });
  port.postMessage({ type: 'rows', results } satisfies FromReader);
});
