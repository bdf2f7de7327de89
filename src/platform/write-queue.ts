import { CompiledQuery } from 'kysely';
import { type Db, isPostgres, isStoreUnavailable, type Trx } from './db.js';

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
function writeOutcomes() {
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

// Run for every unit of work: compiled once.
const savepoint = CompiledQuery.raw('savepoint unit');
const rollbackToSavepoint = CompiledQuery.raw('rollback to unit');
const releaseSavepoint = CompiledQuery.raw('release unit');

/** Most units of work that share one SQLite commit. */
const maxBatch = 256;

/**
 * PostgreSQL: a transaction per unit of work (the server groups concurrent commits itself).
 *
 * SQLite: group commit. A commit with `synchronous=FULL` costs one fsync, which caps one
 * transaction per request at a few thousand a second. Units of work that arrive together run one
 * after another, in order of arrival, inside one transaction, each in a savepoint of its own (so
 * one that fails leaves the others intact), and share its single commit and sync; each promise
 * resolves only once that commit is on disk.
 */
export function createWriteQueue(db: Db): WriteQueue {
  const outcomes = writeOutcomes();
  if (isPostgres(db)) {
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

  interface Pending {
    work: (trx: Trx) => Promise<unknown>;
    resolve: (value: unknown) => void;
    reject: (error: unknown) => void;
  }
  const queue: Pending[] = [];
  let scheduled = false;
  let committedUnits = 0;
  let commits = 0;

  async function drain(): Promise<void> {
    while (queue.length > 0) {
      const batch = queue.splice(0, maxBatch);
      const results: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
      try {
        await db.transaction().execute(async (trx) => {
          for (const unit of batch) {
            await trx.executeQuery(savepoint);
            try {
              results.push({ ok: true, value: await unit.work(trx) });
            } catch (error) {
              // The savepoint is gone when SQLite rolled the whole transaction back itself
              // (SQLITE_FULL, an I/O error): then the batch fails with this unit's error.
              await trx.executeQuery(rollbackToSavepoint).catch(() => {
                throw error;
              });
              results.push({ ok: false, error });
            }
            await trx.executeQuery(releaseSavepoint);
          }
        });
      } catch (error) {
        // Nothing of this batch was committed: every unit fails with the store's error.
        for (const unit of batch) {
          outcomes.failed(error);
          unit.reject(error);
        }
        continue;
      }
      commits += 1;
      committedUnits += results.filter((result) => result.ok).length;
      batch.forEach((unit, index) => {
        const result = results[index];
        if (result?.ok) {
          outcomes.committed();
          unit.resolve(result.value);
        } else {
          outcomes.failed(result?.error);
          unit.reject(result?.error);
        }
      });
    }
    scheduled = false;
  }

  return {
    stats: () => ({ units: committedUnits, commits }),
    failing: outcomes.failing,
    transaction<T>(work: (trx: Trx) => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
        if (!scheduled) {
          scheduled = true;
          // After the requests that arrived with this one have been read, so they join its batch.
          setImmediate(() => void drain());
        }
      });
    },
  };
}
