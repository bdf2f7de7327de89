/**
 * The hot path's batch: the decisions, the visitors' cookie choices, and the customers' channel
 * changes and partner blocks that reached the writer together, written in one transaction with
 * one commit (`writers.ts` runs it on PostgreSQL and an SQLite store in memory,
 * `sqlite-writer.ts` on an SQLite file's writer thread). Each kind is recorded by its own
 * feature, in arrival order within its kind.
 */
// By path, not through the features' index.ts: the writer thread loads this file, and the
// whole surfaces would slow its start (docs/architecture.md).
import type { ChannelChangeOutcome } from '../channels/record-changes.js';
import { recordChannelChanges } from '../channels/record-changes.js';
import type { CookieChoiceOutcome } from '../cookies/record-choices.js';
import { recordCookieChoices } from '../cookies/record-choices.js';
import type { DecisionOutcome } from '../decisions/record-decisions.js';
import { recordDecisions } from '../decisions/record-decisions.js';
import type { PartnerBlockOutcome } from '../partner-blocks/record-changes.js';
import { recordPartnerBlocks } from '../partner-blocks/record-changes.js';
import type { Trx } from '../platform/db.js';
import type { Settled } from '../platform/group-commit.js';
import type { SubjectVault } from '../subjects/index.js';

/** Each kind of record the hot path writes, and the feature function that records a batch of it. */
const recorders = {
  decision: recordDecisions,
  cookie: recordCookieChoices,
  channel: recordChannelChanges,
  partner: recordPartnerBlocks,
} as const;

type Kind = keyof typeof recorders;
type JobOf<K extends Kind> = Parameters<(typeof recorders)[K]>[2][number];

export type HotJob = { [K in Kind]: { kind: K; job: JobOf<K> } }[Kind];
export type HotOutcome =
  | DecisionOutcome
  | CookieChoiceOutcome
  | ChannelChangeOutcome
  | PartnerBlockOutcome;

/**
 * Records a batch: each kind's jobs go to its feature in arrival order (decisions first, then
 * cookie choices, channel changes and partner blocks), and the answers come back in the order of `jobs`.
 */
export async function recordHotWrites(
  trx: Trx,
  vault: SubjectVault,
  jobs: readonly HotJob[],
): Promise<Settled<HotOutcome>[]> {
  const answers: Settled<HotOutcome>[] = new Array(jobs.length);
  for (const kind of Object.keys(recorders) as Kind[]) {
    const positions: number[] = [];
    const ofKind: unknown[] = [];
    jobs.forEach((entry, i) => {
      if (entry.kind !== kind) return;
      positions.push(i);
      ofKind.push(entry.job);
    });
    if (ofKind.length === 0) continue;
    // Each recorder takes its own kind's jobs, which the filter above picked by `kind`.
    const record = recorders[kind] as (
      trx: Trx,
      vault: SubjectVault,
      jobs: readonly unknown[],
    ) => Promise<Settled<HotOutcome>[]>;
    const settled = await record(trx, vault, ofKind);
    if (settled.length !== positions.length) {
      throw new Error('a batch answered fewer jobs than it was given');
    }
    positions.forEach((position, j) => {
      answers[position] = settled[j] as Settled<HotOutcome>;
    });
  }
  return answers;
}
