import { type Db, isStoreUnavailable, type Trx } from './db.js';

/** Runs a unit of work in a transaction whose commit is durable before the promise resolves. */
export interface WriteQueue {
  transaction<T>(work: (trx: Trx) => Promise<T>): Promise<T>;
  /** How many units of work were committed, in how many commits, since the start. */
  stats(): { units: number; commits: number };
  /**
   * True while writes fail: the last `refusalsToFail` units were refused by the store (an
   * outage, see `isStoreUnavailable`), the latest less than `failingForMs` ago, and none has
   * been committed since. Costs nothing: it only looks at the outcomes of real writes.
   */
  failing(): boolean;
}

/** Units refused in a row before writes count as failing: one busy moment is not enough. */
const refusalsToFail = 3;
/**
 * How long writes count as failing after the last refusal when no write is tried since: an
 * instance taken out of rotation for it gets requests again, and so finds out.
 */
const failingForMs = 30_000;

/** The outcomes of units of work, as the health check sees them. */
export function writeOutcomes() {
  let refusedInARow = 0;
  let lastRefusedAt = 0;
  return {
    committed() {
      refusedInARow = 0;
    },
    failed(error: unknown) {
      // A rule's refusal or a bug says nothing about whether the store takes writes.
      if (!isStoreUnavailable(error)) return;
      refusedInARow += 1;
      lastRefusedAt = Date.now();
    },
    failing: () => refusedInARow >= refusalsToFail && Date.now() - lastRefusedAt < failingForMs,
  };
}

/**
 * A transaction per unit of work, durable when its promise resolves: PostgreSQL (the server
 * groups concurrent commits itself) and an in-memory SQLite store. An SQLite file has its
 * writes batched in a thread of their own instead (`writer-thread.ts`).
 */
export function createWriteQueue(db: Db): WriteQueue {
  const outcomes = writeOutcomes();
  let units = 0;
  return {
    async transaction(work) {
      let result: Awaited<ReturnType<typeof work>>;
      try {
        result = await db.transaction().execute(work);
      } catch (error) {
        outcomes.failed(error);
        throw error;
      }
      units += 1;
      outcomes.committed();
      return result;
    },
    stats: () => ({ units, commits: units }),
    failing: outcomes.failing,
  };
}
