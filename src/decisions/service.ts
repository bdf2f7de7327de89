import stringify from 'safe-stable-stringify';
import { AppError } from '../platform/errors.js';
import { sha256Hex } from '../platform/hashing.js';
import { nowIso } from '../platform/time.js';
import type { SubjectVault } from '../subjects/index.js';
import { type Catalog, representationVerdict } from '../templates/index.js';
import { checkActedBy } from './acted-by.js';
import { type DecisionContext, decisionVersion } from './decision.js';
import { type HeldActs, joined, sideOf } from './held-acts.js';
import type { DecisionRequest, HeldDecision } from './schemas.js';
import type { DecisionJob, DecisionOutcome } from './writes.js';

/**
 * Writes decisions durably (`writer.ts`): the SQLite writer thread, PostgreSQL's group commit, or
 * a transaction per batch on an SQLite store in memory; each runs the decisions' writes (`writes.ts`) through the generic recorder.
 */
export interface DecisionWriter {
  write(job: DecisionJob): Promise<DecisionOutcome>;
}

/**
 * A customer's decision, the API's use case: what needs no write is read and computed here, on
 * the request's side (the published version, the customer's keyed look-up, the body's hash,
 * the template's validity period when the rules need it), and the writer records it. With an
 * `Idempotency-Key`, the answer is kept in the decision's own transaction, and a retry within
 * the window is `replayed`.
 */
export async function decide(
  writer: DecisionWriter,
  versions: Pick<Catalog, 'publishedById' | 'validityMonths' | 'dataCategories' | 'representation'>,
  vault: SubjectVault,
  context: DecisionContext,
  customerId: string,
  request: DecisionRequest,
  idempotencyKey?: string,
  held?: HeldActs,
): Promise<DecisionOutcome | Held> {
  checkActedBy(request.acted_by);
  // Of the request as sent: a retry is the same request whatever was held when it came.
  const requestHash = sha256Hex(stringify(request) ?? '');
  // A published version never changes: it is read before, and outside, the transaction.
  const version = await decisionVersion(versions, context.tenantId, request.consent_version_id);
  // The store knows the customer only by this keyed hash and a random id (src/subjects).
  const lookup = vault.lookup(context.tenantId, customerId);
  // Only a version that does not allow re-consent asks whether an earlier `given` has lapsed
  // (rule.ts), and only for a `given` or `reject`: every other decision reads nothing more.
  const validityMonths =
    version.allow_reconsent === 0 && request.decision !== 'withdraw'
      ? await versions.validityMonths(context.tenantId, version.template_code)
      : null;
  // A `given` on sensitive data needs the explicit act (PDPA section 26): refused before the
  // writer, so nothing is stored. The categories are cached with `latest`.
  if (request.decision === 'given' && request.explicit === undefined) {
    const categories = await versions.dataCategories(context.tenantId, version.template_code);
    if (categories.length > 0) throw new AppError('explicitConsentRequired');
  }
  // Who may decide for whom (PDPA section 20): a decision that breaks the template's rule is
  // refused before the writer too, naming the rule; one act of a co-consent waits for the other.
  const rule = await versions.representation(context.tenantId, version.template_code);
  const verdict = representationVerdict(rule, request.decision, request.acted_by);
  let asked = request;
  if (verdict && 'refused' in verdict) {
    throw new AppError('representationRefused', { message: verdict.refused });
  }
  if (verdict && request.acted_by) {
    if (!held) throw new AppError('representationRefused', { message: coConsentMissing });
    const now = nowIso();
    const other = await held.find(context.tenantId, lookup, version.id, verdict.missing, now);
    if (!other && idempotencyKey !== undefined) {
      // A retry of the act that completed the co-consent: nothing is held any more.
      const answer = await held.replayed(context.tenantId, idempotencyKey, lookup, requestHash);
      if (answer) return { kind: 'replayed', answer };
    }
    if (!other) {
      const { role, reference } = request.acted_by;
      const act = { role, ...(reference !== undefined ? { reference } : {}), at: now };
      const expiresAt = await held.hold(context.tenantId, lookup, version.id, act, now);
      return {
        kind: 'held',
        held: {
          customer_id: customerId,
          template_code: version.template_code,
          consent_version_id: version.id,
          decision: 'given',
          side: sideOf(role),
          missing: verdict.missing,
          held_at: now,
          expires_at: expiresAt,
        },
      };
    }
    asked = { ...request, acted_by: joined(request.acted_by, other) };
  }
  const outcome = await writer.write({
    version,
    context,
    customer: { id: customerId, lookup },
    request: asked,
    requestHash,
    idempotencyKey,
    validityMonths,
  });
  // Whatever was held for the customer on the version is answered by a recorded decision. The
  // decision stands whatever becomes of this: what is left expires (held-acts.ts).
  if (rule && held && outcome.kind === 'recorded') {
    await held.clear(context.tenantId, lookup, version.id).catch(() => undefined);
  }
  return outcome;
}

/** One act of a co-consent, held until the other side's comes (held-acts.ts): `202`. */
export interface Held {
  kind: 'held';
  held: HeldDecision;
}

const coConsentMissing =
  "Both acts of a co-consent are needed here: send the other party's as acted_by.co_consent.";
