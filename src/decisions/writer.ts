import { sql } from 'kysely';
import type { Db } from '../platform/db.js';
import { createGroupCommit } from '../platform/group-commit.js';
import type { WriterThread } from '../platform/writer-thread.js';
import type { SubjectVault } from '../subjects/index.js';
import { type DecisionJob, type DecisionOutcome, recordDecisions } from './record-decisions.js';
import type { DecisionWriter } from './service.js';

export interface DecisionWriterHandle extends DecisionWriter {
  /** True while the store refuses writes (the health check). */
  failing(): boolean;
  /** Decisions committed, in how many commits. */
  stats(): { units: number; commits: number };
  /** Runs one statement on the connection that writes decisions (maintenance, fault drills). */
  execute(statement: string): Promise<void>;
}

/**
 * On the service's own store: the decisions that arrive together are written as one batch
 * (`recordDecisions`), in one transaction with one commit. On PostgreSQL `inFlight` batches at
 * most at once, each on a pool connection of its own; on an SQLite store in memory (which
 * another thread cannot open), one at a time on its one connection.
 */
export function decisionWriterOnStore(
  db: Db,
  vault: SubjectVault,
  inFlight: number,
  onCommit?: (jobs: number) => void,
): DecisionWriterHandle {
  const group = createGroupCommit<DecisionJob, DecisionOutcome>(
    db,
    (trx, jobs) => recordDecisions(trx, vault, jobs),
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
 * An SQLite file: the store's writer thread (src/sqlite-writer.ts) writes the decisions with the
 * same `recordDecisions`, those that arrive together in one transaction with one fsync, and the
 * event loop never waits for the disk.
 */
export function decisionWriterOnThread(
  thread: WriterThread<DecisionJob, DecisionOutcome>,
): DecisionWriterHandle {
  return {
    write: thread.submit,
    failing: thread.failing,
    stats: thread.stats,
    execute: thread.execute,
  };
}
