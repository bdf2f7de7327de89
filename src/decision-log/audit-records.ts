/**
 * The records side of the log's audit: the leaf each record of the store makes today, to compare
 * with the leaf the log holds for it, and the records the log is missing. A record is a decision,
 * an erasure's tombstone, a website visitor's cookie decision, a customer's channel change or
 * partner block; each kind's leaf is its feature's (src/decisions/leaf.ts, src/erasure/leaf.ts,
 * src/cookies/leaf.ts, src/channels/leaf.ts, src/partner-blocks/leaf.ts).
 */
import type { ChannelChangeRow } from '../channels/index.js';
import { committedChannelLeaf, leafOfChannelChange } from '../channels/index.js';
import type { CookieDecisionRow } from '../cookies/index.js';
import { leafOfCookieDecision } from '../cookies/index.js';
import type { DecisionRow } from '../decisions/index.js';
import { committedLeaf, leafOfDecision } from '../decisions/index.js';
import { leafOfErasure } from '../erasure/index.js';
import type { PartnerBlockChangeRow } from '../partner-blocks/index.js';
import { committedPartnerLeaf, leafOfPartnerBlock } from '../partner-blocks/index.js';
import type { Db } from '../platform/db.js';
import {
  cookieLeafText,
  parseChannelLeaf,
  parseCookieLeaf,
  parseLeaf,
  parsePartnerLeaf,
} from '../proof/index.js';
import type { OpenedRecord, personalReader } from '../subjects/index.js';
import {
  findChannelChangesByIds,
  findCookieDecisionsByIds,
  findDecisionsByIds,
  findErasures,
  findPartnerBlockChangesByIds,
  findUnlogged,
} from './repository.js';

/**
 * The leaf each record makes today, by record id. Null for a record whose sealed fields no longer
 * open (they, or its subject's key, were changed); no entry for a record that is not in the store.
 */
export async function expectedLeaves(
  db: Db,
  open: ReturnType<typeof personalReader>,
  logId: string,
  entries: readonly { record_id: string; leaf: string }[],
): Promise<Map<string, string | null>> {
  const ids = entries.map((e) => e.record_id);
  const logged = new Map(entries.map((e) => [e.record_id, e.leaf]));
  const expected = new Map<string, string | null>();
  const decisions = await findDecisionsByIds(db, logId, ids);
  const openedDecisions = await open(decisions);
  decisions.forEach((row, i) => {
    expected.set(row.id, decisionLeaf(row, openedDecisions[i] as OpenedRecord, logged.get(row.id)));
  });
  for (const erasure of await findErasures(db, logId, ids)) {
    expected.set(erasure.id, leafOfErasure(erasure, erasure.commitment));
  }
  const choices = await findCookieDecisionsByIds(db, logId, ids);
  const openedChoices = await open(choices);
  choices.forEach((row, i) => {
    expected.set(row.id, cookieLeaf(row, openedChoices[i] as OpenedRecord, logged.get(row.id)));
  });
  const changes = await findChannelChangesByIds(db, logId, ids);
  const openedChanges = await open(changes);
  changes.forEach((row, i) => {
    expected.set(row.id, channelLeaf(row, openedChanges[i] as OpenedRecord, logged.get(row.id)));
  });
  const blocks = await findPartnerBlockChangesByIds(db, logId, ids);
  const openedBlocks = await open(blocks);
  blocks.forEach((row, i) => {
    expected.set(row.id, partnerLeaf(row, openedBlocks[i] as OpenedRecord, logged.get(row.id)));
  });
  return expected;
}

function partnerLeaf(
  row: PartnerBlockChangeRow,
  opened: OpenedRecord,
  logged: string | undefined,
): string | null {
  if (opened.state === 'open') {
    const { personal, salt } = opened;
    return leafOfPartnerBlock({ ...row, ...personal }, salt);
  }
  if (opened.state === 'unreadable') return null;
  // The customer was erased: checked as their channel changes are.
  return committedPartnerLeaf(
    row,
    opened.commitment,
    parsePartnerLeaf(logged ?? '')?.evidence ?? '',
  );
}

function channelLeaf(
  row: ChannelChangeRow,
  opened: OpenedRecord,
  logged: string | undefined,
): string | null {
  if (opened.state === 'open') {
    const { personal, salt } = opened;
    return leafOfChannelChange({ ...row, ...personal }, salt);
  }
  if (opened.state === 'unreadable') return null;
  // The customer was erased: checked as their decisions are, by the subject commitment that was
  // kept; the evidence commitment is taken as logged.
  return committedChannelLeaf(
    row,
    opened.commitment,
    parseChannelLeaf(logged ?? '')?.evidence ?? '',
  );
}

function decisionLeaf(row: DecisionRow, opened: OpenedRecord, logged: string | undefined) {
  if (opened.state === 'open') {
    const { personal, salt } = opened;
    return leafOfDecision({ ...row, ...personal, evidence_salt: row.evidence_salt ?? '' }, salt);
  }
  if (opened.state === 'unreadable') return null;
  // The customer was erased: all but the evidence is still checked (the subject commitment was
  // kept); the evidence's values are gone with their key, so its commitment is taken as logged.
  return committedLeaf(row, opened.commitment, parseLeaf(logged ?? '')?.evidence ?? '');
}

function cookieLeaf(
  row: CookieDecisionRow,
  opened: OpenedRecord,
  logged: string | undefined,
): string | null {
  if (opened.state === 'unreadable') return null;
  const categories = categoriesOf(row.categories);
  // Categories that are no longer a JSON object of booleans were changed: no leaf matches them.
  if (!categories) return '';
  if (opened.state === 'open') {
    const { personal, salt } = opened;
    return leafOfCookieDecision(
      {
        ...row,
        categories,
        visitor_id: personal.customer_id,
        ip: personal.ip,
        user_agent: personal.user_agent,
      },
      salt,
    );
  }
  // The visitor was erased: checked as an erased customer's decision is, by the subject
  // commitment that was kept; the evidence commitment is taken as logged.
  return cookieLeafText({
    recordId: row.id,
    time: row.decided_at,
    configurationId: row.configuration_id,
    version: Number(row.configuration_version),
    contentSha256: row.content_sha256,
    method: row.method,
    categories,
    visitor: opened.commitment,
    evidence: parseCookieLeaf(logged ?? '')?.evidence ?? '',
  });
}

function categoriesOf(json: string): Record<string, boolean> | undefined {
  try {
    const parsed: unknown = JSON.parse(json);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
    const values = Object.values(parsed);
    return values.every((v) => typeof v === 'boolean')
      ? (parsed as Record<string, boolean>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Records that are neither in the log nor queued for it (at most 1,000 of each kind). */
export async function unloggedRecords(db: Db, logId: string): Promise<string[]> {
  return [
    ...(await findUnlogged(db, 'decisions', logId)),
    ...(await findUnlogged(db, 'erasures', logId)),
    ...(await findUnlogged(db, 'cookie_decisions', logId)),
    ...(await findUnlogged(db, 'channel_changes', logId)),
    ...(await findUnlogged(db, 'partner_block_changes', logId)),
  ];
}
