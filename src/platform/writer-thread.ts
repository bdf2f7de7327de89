import { Worker } from 'node:worker_threads';
import { sql } from 'kysely';
import { type Db, writerStoppedCode } from './db.js';
import { workerArguments } from './thread-entry.js';
import { writeOutcomes } from './write-outcomes.js';
import { type FromWriter, fromWire, type ToWriter, type WireResult } from './writer-wire.js';

/** A job handed to the writer thread, answered once its batch's commit is on disk. */
export interface WriterThread<Job, Result> {
  submit(job: Job): Promise<Result>;
  /** Runs one statement on the writer's own connection, between batches. */
  execute(statement: string): Promise<void>;
  /** Runs one of the thread's named tasks, between batches (starting the thread if need be). */
  task(name: string): Promise<void>;
  /** How many jobs were committed, in how many commits, since the start. */
  stats(): { units: number; commits: number };
  /** See `WriteHealth.failing`. */
  failing(): boolean;
  /** True while the thread runs (it starts with the first job or task). */
  running(): boolean;
  /**
   * Stops the thread at once, whatever it holds, as a crash would: the jobs it held fail as a
   * store fault, and the next job starts a new thread.
   */
  terminate(): Promise<void>;
  /** Lets the jobs already sent finish, then stops the thread. */
  close(): Promise<void>;
}

/**
 * The main thread's side of the SQLite writer thread. The thread (its entry script `entry`,
 * which calls `serveWrites` of `writer-loop.ts`) owns the store's write connection: the main
 * thread parses, authenticates and validates, posts each job, and answers when the thread has
 * committed it. Jobs submitted in the same turn of the event loop are posted as one message.
 *
 * The thread starts with the first job, and again after it stopped (a crash of the thread fails
 * the jobs in flight, which the caller answers `503 1009`, and the next job starts a new one).
 * Once it runs, the main connection no longer checkpoints the WAL itself: the thread does, off
 * the request path. `onCommit` is told the size of every batch the thread committed.
 */
export function startWriterThread<Job, Result>(
  db: Db,
  entry: URL,
  workerData: unknown,
  onCommit: (jobs: number) => void = () => {},
): WriterThread<Job, Result> {
  const outcomes = writeOutcomes();
  const waiting = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (e: Error) => void }
  >();
  let worker: Worker | undefined;
  let exited: Promise<void> = Promise.resolve();
  let nextId = 1;
  let outbox: Array<{ id: number; job: Job }> = [];
  let units = 0;
  let commits = 0;
  let handedOver = false;

  /** Answers a job or an `execute`; only jobs count towards `failing`. */
  function settle(result: WireResult, isJob = true): void {
    const pending = waiting.get(result.id);
    if (!pending) return;
    waiting.delete(result.id);
    if (result.ok) {
      if (isJob) outcomes.committed();
      pending.resolve(result.value);
      return;
    }
    const error = fromWire(result.error);
    if (isJob) outcomes.failed(error);
    pending.reject(error);
  }

  function start(): Worker {
    const started = new Worker(...workerArguments(entry, workerData));
    started.on('message', (message: FromWriter) => {
      if (message.type === 'ready') {
        if (!handedOver) {
          handedOver = true;
          // The thread checkpoints from now on; a checkpoint here would block the event loop.
          void sql`pragma wal_autocheckpoint = 0`.execute(db).catch(() => {});
        }
        return;
      }
      if (message.type === 'executed') {
        settle(message.result, false);
        return;
      }
      if (message.committed) {
        commits += 1;
        units += message.results.filter((result) => result.ok).length;
        onCommit(message.results.length);
      }
      for (const result of message.results) settle(result);
    });
    let failure: Error | undefined;
    started.on('error', (error) => {
      failure = error;
    });
    exited = new Promise((resolve) => {
      started.on('exit', () => {
        if (worker === started) worker = undefined;
        const message = `the store writer stopped${failure ? `: ${failure.message}` : ''}`;
        for (const id of [...waiting.keys()]) {
          settle({ id, ok: false, error: { message, code: writerStoppedCode } });
        }
        resolve();
      });
    });
    return started;
  }

  function send(message: ToWriter<Job>): void {
    worker ??= start();
    worker.postMessage(message);
  }

  function flush(): void {
    if (outbox.length === 0) return;
    const jobs = outbox;
    outbox = [];
    send({ type: 'jobs', jobs });
  }

  function expect<T>(id: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
    });
  }

  return {
    submit(job) {
      const id = nextId++;
      if (outbox.length === 0) setImmediate(flush);
      outbox.push({ id, job });
      return expect<Result>(id);
    },
    execute(statement) {
      const id = nextId++;
      flush();
      send({ type: 'execute', id, sql: statement });
      return expect<void>(id);
    },
    task(name) {
      const id = nextId++;
      flush();
      send({ type: 'task', id, name });
      return expect<void>(id);
    },
    stats: () => ({ units, commits }),
    failing: outcomes.failing,
    running: () => worker !== undefined,
    async terminate() {
      await worker?.terminate();
      await exited;
    },
    async close() {
      flush();
      if (!worker) return;
      worker.postMessage({ type: 'close' } satisfies ToWriter<Job>);
      await exited;
    },
  };
}
