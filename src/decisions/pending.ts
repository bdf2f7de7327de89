import { HeaderList, type ReadAnswer } from '../platform/read-answer.js';
import { nowIso } from '../platform/time.js';
import type { SubjectVault } from '../subjects/index.js';
import {
  answerForm,
  type Catalog,
  type LatestEntry,
  type Side,
  variantFor,
} from '../templates/index.js';
import type { HeldActs } from './held-acts.js';
import { type Lapse, lapseOf } from './lapse.js';
import type { PendingResult } from './schemas.js';
import type { DecisionValue } from './table.js';

/** The customer's last decision on a version. */
export interface VersionState {
  last_decision: DecisionValue;
  last_decided_at: string;
}

/** Reads of `pending`, on whichever store. */
export interface PendingReads {
  /** The customer's (by their keyed look-up) state on a version, if they decided on it. */
  versionState(
    tenantId: string,
    lookup: string,
    versionId: string,
  ): Promise<VersionState | undefined>;
}

/** Where a customer stands on the latest version of a template. */
export interface PendingState {
  /** The latest release's variant answered, with its parts serialized once (catalog.ts). */
  latest: LatestEntry;
  /** The customer's last decision on that release (on any locale's variant), if any. */
  decided: { last_decision: DecisionValue; last_decided_at: string } | undefined;
  /** Whether that decision stands: there is one, and it is no `given` that has lapsed. */
  accepted: boolean;
  /** When that decision is a `given` on a template with a validity period: when it lapses. */
  lapse: Lapse | undefined;
  /**
   * Not accepted, on a template whose rule asks for a co-consent, with one side's act held: the
   * side still missing (held-acts.ts).
   */
  missing?: Side | undefined;
}

/**
 * Whether the customer still has to decide on the latest release of a template: a decision on
 * any locale's variant of it counts, unless it is a `given` older than the template's validity
 * period (`lapseOf`), read with the cached release. One query by key per variant (the
 * customer's keyed look-up and the release, which is cached), whatever the history, all asked at
 * once (`PendingReads` says where they run); an erased customer has no look-up, so they start
 * afresh.
 */
export async function getPendingState(
  reads: PendingReads,
  catalog: Catalog,
  vault: SubjectVault,
  tenantId: string,
  customerId: string,
  templateCode: string,
  requested: readonly string[] = [],
  held?: Pick<HeldActs, 'missing'>,
): Promise<PendingState> {
  const release = await catalog.latest(tenantId, templateCode);
  const lookup = vault.lookup(tenantId, customerId);
  let decided: PendingState['decided'];
  const states = await Promise.all(
    release.ids.map((id) => reads.versionState(tenantId, lookup, id)),
  );
  for (const state of states) {
    if (state && (!decided || state.last_decided_at > decided.last_decided_at)) decided = state;
  }
  // No clock read for a template without a validity period: nothing lapses there.
  const lapse =
    release.validityMonths === null
      ? undefined
      : lapseOf(decided?.last_decision, decided?.last_decided_at, release.validityMonths, nowIso());
  const accepted = decided !== undefined && lapse?.expired !== true;
  // Only a template whose rule asks for a co-consent reads more, and only when not accepted.
  const missing =
    !accepted && release.coConsent && held
      ? await held.missing(tenantId, lookup, release.ids, nowIso())
      : undefined;
  return {
    latest: variantFor(release, requested),
    decided,
    accepted,
    lapse,
    ...(missing ? { missing } : {}),
  };
}

/**
 * `{"data": PendingResult}` as JSON: the version's part is serialized once per version, so each
 * answer only adds the customer's few fields to it. `expired` and `expires_at` come only with a
 * lapse (a `given` on a template with a validity period), so every other answer is byte for byte
 * the one from before validity periods.
 */
export function pendingBody(versionJson: string, state: PendingState): string {
  const { decided, lapse } = state;
  // The keys in PendingResult's order, as the schema's serializer would write them.
  const result: Record<Exclude<keyof PendingResult, keyof Lapse | 'missing'>, string> = {
    accepted: String(state.accepted),
    consent_version: versionJson,
    decision: JSON.stringify(decided?.last_decision ?? null),
    decided_at: JSON.stringify(decided?.last_decided_at ?? null),
  };
  const lapsing = lapse
    ? `,"expired":${lapse.expired},"expires_at":${JSON.stringify(lapse.expires_at)}`
    : '';
  // Only while one act of a co-consent is held: every other answer is as before.
  const missing = state.missing ? `,"missing":${JSON.stringify(state.missing)}` : '';
  return `{"data":{"accepted":${result.accepted},"consent_version":${result.consent_version},"decision":${result.decision},"decided_at":${result.decided_at}${lapsing}${missing}}}`;
}

/**
 * `pending`'s answer, whichever path sends it (the route, or the hot path before Fastify): the
 * customer's standing on the variant the request asks for, never cached.
 */
export function pendingAnswer(state: PendingState, requested: readonly string[]): ReadAnswer {
  const headers = new HeaderList().header('cache-control', 'no-store');
  const { presentedJson } = answerForm(headers, state.latest, requested);
  // Assembled from parts serialized once per version: sent as it is.
  return { status: 200, headers: headers.entries, body: pendingBody(presentedJson, state) };
}
