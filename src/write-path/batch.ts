/**
 * The write path's batch: the requests of every kind that reached the writer together (a
 * decision, a visitor's cookie choice, a channel change, …), written in one transaction with one
 * commit (`writers.ts` runs it on PostgreSQL and an SQLite store in memory, `sqlite-writer.ts`
 * on an SQLite file's writer thread). Each kind's part goes to the one generic recorder with the
 * kind's declaration, in arrival order within the kind, the kinds in the registry's order.
 * On PostgreSQL the transaction plans each statement for its own run (`planEachRun`): the
 * kinds' batch statements are prepared, parsed once a connection, and never keep a plan.
 */
import type { Trx } from '../platform/db.js';
import type { Settled } from '../platform/group-commit.js';
import { planEachRun } from '../platform/unnest.js';
import { type Registry, recordKindBatch } from '../record-kinds/index.js';
import type { SubjectVault } from '../subjects/index.js';

/** One request as the writer takes it: its kind's name and its job (plain data). */
export interface WriteJob {
  kind: string;
  job: unknown;
}

/** Records a batch, answering each job in the order of `jobs`. */
export async function recordBatch(
  trx: Trx,
  vault: SubjectVault,
  registry: Registry,
  jobs: readonly WriteJob[],
): Promise<Settled<unknown>[]> {
  const answers: Settled<unknown>[] = new Array(jobs.length);
  await planEachRun(trx);
  for (const kind of registry.kinds) {
    const { writes } = kind;
    if (!writes) continue;
    const positions: number[] = [];
    const ofKind: unknown[] = [];
    jobs.forEach((entry, i) => {
      if (entry.kind !== kind.name) return;
      positions.push(i);
      ofKind.push(entry.job);
    });
    if (ofKind.length === 0) continue;
    const settled = await recordKindBatch(trx, vault, writes, ofKind);
    if (settled.length !== positions.length) {
      throw new Error('a batch answered fewer jobs than it was given');
    }
    positions.forEach((position, j) => {
      answers[position] = settled[j] as Settled<unknown>;
    });
  }
  const unknown = jobs.findIndex((_, i) => answers[i] === undefined);
  if (unknown >= 0) throw new Error(`no kind of record writes ${jobs[unknown]?.kind}`);
  return answers;
}
