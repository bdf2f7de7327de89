import { type Db, isStoreUnavailable, isTransientConflict, type Trx } from './db.js';
import { writeOutcomes } from './write-outcomes.js';

/** One job's result in a batch: its value, or the error that failed it alone. */
export type Settled<R> = { ok: true; value: R } | { ok: false; error: unknown };

/**
 * Each job of a batch decided in arrival order against what the store answered for it (the
 * same position in `stored`): a job that throws fails alone, its neighbours go on.
 */
export function settleEach<J, S, R>(
  jobs: readonly J[],
  stored: readonly S[],
  decide: (job: J, standing: S) => R,
): Settled<R>[] {
  return jobs.map((job, i): Settled<R> => {
    try {
      const standing = stored[i];
      if (standing === undefined) throw new Error(`the store answered nothing for job ${i}`);
      return { ok: true, value: decide(job, standing) };
    } catch (error) {
      return { ok: false, error };
    }
  });
}

/** Writes the jobs that arrived together, in one transaction, answering each in order. */
export type BatchWriter<J, R> = (trx: Trx, jobs: readonly J[]) => Promise<Settled<R>[]>;

export interface GroupCommit<J, R> {
  /** Resolves once the job's batch has committed (or with its own answer, if it failed alone). */
  submit(job: J): Promise<R>;
  /** Jobs committed, in how many commits. */
  stats(): { units: number; commits: number };
  /** True while the store refuses writes (see `writeOutcomes`). */
  failing(): boolean;
}

/** Most jobs that share one commit. */
const maxBatch = 256;
/** How many times a batch PostgreSQL ended to break a deadlock is written again. */
const conflictRetries = 3;

/**
 * Group commit on PostgreSQL: the jobs that arrive while earlier batches are being written wait,
 * and go together as the next batch: one transaction, set-based statements, one commit. At most
 * `inFlight` batches are written at once (each on a pool connection of its own), so under load
 * the batches grow instead of the transactions multiplying.
 *
 * - A job that the batch writer fails alone (it wrote nothing) fails alone.
 * - A batch PostgreSQL ended to break a deadlock or a serialization conflict is written again
 *   (up to `conflictRetries` times): nothing of it was written. Batches take their locks in one
 *   order and never deadlock each other, but a writer that takes them otherwise can (an instance
 *   still running an older version during a rolling upgrade).
 * - A batch whose transaction fails for another reason than the store being down is redone one
 *   job per transaction, so one bad job never fails its neighbours.
 * - A store that is down fails each job of the batch with its own error (`503 1009`).
 *
 * `onCommit` is told the size of every batch committed (the batch-size histogram).
 */
export function createGroupCommit<J, R>(
  db: Db,
  write: BatchWriter<J, R>,
  inFlight: number,
  onCommit: (jobs: number) => void = () => {},
): GroupCommit<J, R> {
  type Waiting = { job: J; resolve: (value: R) => void; reject: (error: unknown) => void };
  const queue: Waiting[] = [];
  const outcomes = writeOutcomes();
  let running = 0;
  let scheduled = false;
  let units = 0;
  let commits = 0;

  async function commit(batch: readonly Waiting[], retries = conflictRetries): Promise<void> {
    let results: Settled<R>[];
    try {
      results = await db.transaction().execute((trx) =>
        write(
          trx,
          batch.map((w) => w.job),
        ),
      );
    } catch (error) {
      if (retries > 0 && isTransientConflict(error)) return commit(batch, retries - 1);
      outcomes.failed(error);
      if (batch.length > 1 && !isStoreUnavailable(error)) {
        for (const one of batch) await commit([one]);
        return;
      }
      for (const w of batch) w.reject(error);
      return;
    }
    commits += 1;
    outcomes.committed();
    onCommit(batch.length);
    batch.forEach((w, i) => {
      const result = results[i];
      if (result?.ok) {
        units += 1;
        w.resolve(result.value);
      } else w.reject(result ? result.error : new Error('the batch writer skipped a job'));
    });
  }

  function flush(): void {
    scheduled = false;
    while (running < inFlight && queue.length > 0) {
      const batch = queue.splice(0, maxBatch);
      running += 1;
      void commit(batch).finally(() => {
        running -= 1;
        schedule();
      });
    }
  }

  function schedule(): void {
    if (scheduled || queue.length === 0 || running >= inFlight) return;
    scheduled = true;
    // After the requests already read from the sockets have queued theirs: they share it.
    setImmediate(flush);
  }

  return {
    submit(job) {
      return new Promise<R>((resolve, reject) => {
        queue.push({ job, resolve, reject });
        schedule();
      });
    },
    stats: () => ({ units, commits }),
    failing: outcomes.failing,
  };
}
