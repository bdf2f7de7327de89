import { parentPort } from 'node:worker_threads';
import { sql } from 'kysely';
import { type Db, isStoreUnavailable } from './db.js';
import type { BatchWriter, Settled } from './group-commit.js';
import { type FromWriter, type ToWriter, toWire, type WireResult } from './writer-wire.js';

/** Most jobs that share one commit. */
const maxBatch = 256;
/** How often the writer folds the WAL back into the database file, between batches. */
const checkpointIntervalMs = 1_000;

/**
 * The writer thread's side (see `writer-thread.ts` for the main side): takes the jobs the main
 * thread posts, writes those that arrived together as one batch in one transaction, commits
 * once (one WAL write and one fsync for the lot), and posts each job's result back.
 *
 * - `write` answers each job of the batch: a job that fails alone (it wrote nothing: the batch
 *   writer adds a job's writes to the batch's only once it has succeeded) fails with its own
 *   error and its neighbours go on; a batch whose transaction fails for another reason than the
 *   store refusing it is redone one job per transaction, so one bad job never fails the others.
 * - A store that refuses the batch (full, read-only, I/O error) fails each of its jobs with
 *   its own error.
 * - The WAL checkpoint runs here, every second between batches, never in a commit: the
 *   connections do not checkpoint on their own (`wal_autocheckpoint = 0`).
 */
export async function serveWrites<Job>(
  db: Db,
  write: BatchWriter<Job, unknown>,
  options: {
    /** Work the main thread may ask for by name (`WriterThread.task`), run between batches. */
    tasks?: Record<string, () => Promise<unknown>>;
    /** Runs once the last batch is committed, before the connection closes. */
    beforeClose?: () => Promise<void>;
  } = {},
): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('serveWrites runs in a worker thread');
  await sql`pragma wal_autocheckpoint = 0`.execute(db);
  const post = (message: FromWriter) => port.postMessage(message);

  type Queued =
    | { id: number; job: Job }
    | { id: number; sql: string }
    | { id: number; task: string };
  const queue: Queued[] = [];
  let draining = false;
  let scheduled = false;
  let closing = false;

  async function commitBatch(batch: Array<{ id: number; job: Job }>): Promise<void> {
    let settled: Settled<unknown>[];
    try {
      settled = await db.transaction().execute((trx) =>
        write(
          trx,
          batch.map((queued) => queued.job),
        ),
      );
    } catch (error) {
      if (batch.length > 1 && !isStoreUnavailable(error)) {
        for (const one of batch) await commitBatch([one]);
        return;
      }
      // Nothing of this batch was committed: every job fails with the store's error.
      const wire = toWire(error);
      const results = batch.map(({ id }) => ({ id, ok: false as const, error: wire }));
      post({ type: 'results', results, committed: false });
      return;
    }
    const results = batch.map(({ id }, i): WireResult => {
      const one = settled[i];
      if (one?.ok) return { id, ok: true, value: one.value };
      return { id, ok: false, error: toWire(one ? one.error : new Error('a job was skipped')) };
    });
    post({ type: 'results', results, committed: true });
  }

  async function execute(item: { id: number; sql: string } | { id: number; task: string }) {
    const { id } = item;
    try {
      if ('sql' in item) await sql.raw(item.sql).execute(db);
      else {
        const task = options.tasks?.[item.task];
        if (!task) throw new Error(`no task ${item.task} in the writer thread`);
        await task();
      }
      post({ type: 'executed', result: { id, ok: true, value: null } });
    } catch (error) {
      post({ type: 'executed', result: { id, ok: false, error: toWire(error) } });
    }
  }

  async function drain(): Promise<void> {
    draining = true;
    while (queue.length > 0) {
      const head = queue[0];
      if (head && !('job' in head)) {
        queue.shift();
        await execute(head);
        continue;
      }
      const end = queue.findIndex((item, index) => !('job' in item) || index >= maxBatch);
      const batch = queue.splice(0, end === -1 ? queue.length : end) as Array<{
        id: number;
        job: Job;
      }>;
      await commitBatch(batch);
    }
    draining = false;
    if (closing) await shutDown();
  }

  /**
   * Every second, whoever wrote (this thread, or the main connection, which no longer
   * checkpoints either): with nothing new in the WAL it costs next to nothing. One that cannot
   * run now (the disk refuses) runs next time.
   */
  async function checkpoint(mode: 'passive' | 'truncate'): Promise<void> {
    await sql
      .raw(`pragma wal_checkpoint(${mode})`)
      .execute(db)
      .catch(() => {});
  }

  const timer = setInterval(() => {
    if (!draining) void checkpoint('passive');
  }, checkpointIntervalMs);
  timer.unref();

  async function shutDown(): Promise<void> {
    clearInterval(timer);
    await options.beforeClose?.();
    await checkpoint('truncate');
    await db.destroy();
    port?.close();
  }

  port.on('message', (message: ToWriter<Job>) => {
    if (message.type === 'close') {
      closing = true;
      if (!draining && !scheduled) void shutDown();
      return;
    }
    if (message.type === 'execute') queue.push({ id: message.id, sql: message.sql });
    else if (message.type === 'task') queue.push({ id: message.id, task: message.name });
    else queue.push(...message.jobs);
    if (!draining && !scheduled) {
      scheduled = true;
      // After every message already sent has arrived, so that they share the batch.
      setImmediate(() => {
        scheduled = false;
        void drain();
      });
    }
  });
  post({ type: 'ready' });
}
