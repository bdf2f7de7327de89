import { CompiledQuery } from 'kysely';
import { type Db, isPostgres, type Trx } from './db.js';

/** Runs a unit of work in a transaction whose commit is durable before the promise resolves. */
export interface WriteQueue {
  transaction<T>(work: (trx: Trx) => Promise<T>): Promise<T>;
  /** How many units of work were committed, in how many commits, since the start. */
  stats(): { units: number; commits: number };
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
  if (isPostgres(db)) {
    let units = 0;
    return {
      async transaction(work) {
        const result = await db.transaction().execute(work);
        units += 1;
        return result;
      },
      stats: () => ({ units, commits: units }),
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
      const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
      try {
        await db.transaction().execute(async (trx) => {
          for (const unit of batch) {
            await trx.executeQuery(savepoint);
            try {
              outcomes.push({ ok: true, value: await unit.work(trx) });
            } catch (error) {
              // The savepoint is gone when SQLite rolled the whole transaction back itself
              // (SQLITE_FULL, an I/O error): then the batch fails with this unit's error.
              await trx.executeQuery(rollbackToSavepoint).catch(() => {
                throw error;
              });
              outcomes.push({ ok: false, error });
            }
            await trx.executeQuery(releaseSavepoint);
          }
        });
      } catch (error) {
        // Nothing of this batch was committed: every unit fails with the store's error.
        for (const unit of batch) unit.reject(error);
        continue;
      }
      commits += 1;
      committedUnits += outcomes.filter((outcome) => outcome.ok).length;
      batch.forEach((unit, index) => {
        const outcome = outcomes[index];
        if (outcome?.ok) unit.resolve(outcome.value);
        else unit.reject(outcome?.error);
      });
    }
    scheduled = false;
  }

  return {
    stats: () => ({ units: committedUnits, commits }),
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
