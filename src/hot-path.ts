/**
 * The hot path's batch: the decisions and the visitors' cookie choices that reached the writer
 * together, written in one transaction with one commit (`writers.ts` runs it on PostgreSQL and
 * an SQLite store in memory, `sqlite-writer.ts` on an SQLite file's writer thread). Each kind is
 * recorded by its own feature, in arrival order within its kind.
 */
// By path, not through the features' index.ts: the writer thread loads this file, and the
// whole surfaces would slow its start (docs/architecture.md).
import type { CookieChoiceJob, CookieChoiceOutcome } from './cookies/record-choices.js';
import { recordCookieChoices } from './cookies/record-choices.js';
import type { DecisionJob, DecisionOutcome } from './decisions/record-decisions.js';
import { recordDecisions } from './decisions/record-decisions.js';
import type { Trx } from './platform/db.js';
import type { Settled } from './platform/group-commit.js';
import type { SubjectVault } from './subjects/index.js';

export type HotJob =
  | { kind: 'decision'; job: DecisionJob }
  | { kind: 'cookie'; job: CookieChoiceJob };
export type HotOutcome = DecisionOutcome | CookieChoiceOutcome;

export async function recordHotWrites(
  trx: Trx,
  vault: SubjectVault,
  jobs: readonly HotJob[],
): Promise<Settled<HotOutcome>[]> {
  const decisions: DecisionJob[] = [];
  const choices: CookieChoiceJob[] = [];
  for (const entry of jobs) {
    if (entry.kind === 'decision') decisions.push(entry.job);
    else choices.push(entry.job);
  }
  const decided = decisions.length > 0 ? await recordDecisions(trx, vault, decisions) : [];
  const chosen = choices.length > 0 ? await recordCookieChoices(trx, vault, choices) : [];
  let d = 0;
  let c = 0;
  return jobs.map((entry) => {
    const result = entry.kind === 'decision' ? decided[d++] : chosen[c++];
    if (!result) throw new Error('a batch answered fewer jobs than it was given');
    return result;
  });
}
