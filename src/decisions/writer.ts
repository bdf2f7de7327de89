import { sql } from 'kysely';
import type { Db } from '../platform/db.js';
import { createGroupCommit } from '../platform/group-commit.js';
import { createWriteQueue } from '../platform/write-queue.js';
import type { WriterThread } from '../platform/writer-thread.js';
import type { SubjectVault } from '../subjects/vault.js';
import { writeDecisionBatch } from './batch.js';
import {
  type DecisionAnswer,
  type DecisionJob,
  type DecisionWriter,
  writeDecision,
} from './idempotency.js';

export interface DecisionWriterHandle extends DecisionWriter {
  /** True while the store refuses writes (the health check). */
  failing(): boolean;
  /** Decisions committed, in how many commits. */
  stats(): { units: number; commits: number };
  /** Runs one statement on the connection that writes decisions (maintenance, fault drills). */
  execute(statement: string): Promise<void>;
}

/**
 * PostgreSQL: the decisions that arrive together are written as one batch, in one transaction
 * with set-based statements and one commit (`batch.ts`); `inFlight` batches at most at once.
 */
export function decisionWriterGrouped(
  db: Db,
  vault: SubjectVault,
  inFlight: number,
  onCommit?: (jobs: number) => void,
): DecisionWriterHandle {
  const group = createGroupCommit<DecisionJob, DecisionAnswer>(
    db,
    (trx, jobs) => writeDecisionBatch(trx, vault, jobs),
    inFlight,
    onCommit,
  );
  return {
    write: group.submit,
    failing: group.failing,
    stats: group.stats,
    execute: async (statement) => {
      await sql.raw(statement).execute(db);
    },
  };
}

/**
 * An SQLite store in memory (which another thread cannot open): a transaction per
 * decision, on the service's own pool or connection.
 */
export function decisionWriterInProcess(db: Db, vault: SubjectVault): DecisionWriterHandle {
  const queue = createWriteQueue(db);
  return {
    write: (job) => queue.transaction((trx) => writeDecision(trx, vault, job)),
    failing: queue.failing,
    stats: queue.stats,
    execute: async (statement) => {
      await sql.raw(statement).execute(db);
    },
  };
}

/**
 * An SQLite file: the store's writer thread (src/writer-thread.ts) writes the decisions, those that
 * arrive together in one transaction with one fsync, and the event loop never waits for the disk.
 */
export function decisionWriterOnThread(
  thread: WriterThread<DecisionJob, DecisionAnswer>,
): DecisionWriterHandle {
  return {
    write: thread.submit,
    failing: thread.failing,
    stats: thread.stats,
    execute: thread.execute,
  };
}
