import { anySubscriber, writeJournal } from '../journal/index.js';
import type { Trx } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { lockKey } from '../platform/locks.js';
import { nowIso } from '../platform/time.js';
import { newSalt } from '../proof/leaf.js';
import { sealPersonal } from '../subjects/personal.js';
import { createSubject, findSubject, type OpenSubject } from '../subjects/service.js';
import type { SubjectVault } from '../subjects/vault.js';
import type { Catalog } from '../templates/catalog.js';
import type { VersionWithCode } from '../templates/service.js';
import { decisionEvent } from './event.js';
import { leafOfDecision } from './leaf.js';
import { appendDecision, findDecision, findTemplateState, findVersionState } from './repository.js';
import type { DecisionRequest, RecordedDecision } from './schemas.js';
import type { DecisionRow, DecisionValue } from './table.js';

/** Who sent the decision: kept with it as evidence. */
export interface DecisionContext {
  tenantId: string;
  apiKeyId: string;
  ip: string;
  userAgent: string | null;
}

/**
 * What a decision came to: `recorded` stored a new decision; `unchanged` found the same decision
 * already given on a version that does not allow re-consent, and stored nothing.
 */
export interface DecisionOutcome {
  outcome: 'recorded' | 'unchanged';
  decision: RecordedDecision;
}

/**
 * A refusal under the rules of contract section 5 (`409`): an answer to the request, not a fault,
 * so a retry with the same idempotency key is refused the same way.
 */
export class DecisionRefused extends AppError {}

/** The published version a decision names; `404 1004` when the tenant has none by that id. */
export async function decisionVersion(
  versions: Pick<Catalog, 'publishedById'>,
  tenantId: string,
  versionId: string,
): Promise<VersionWithCode> {
  const version = await versions.publishedById(tenantId, versionId.toLowerCase());
  if (!version) throw new AppError('versionNotFound');
  return version;
}

/** Where the customer stands, as the rules of contract section 5 read it. */
export interface Standing {
  /** On the version's template: how many decisions, and the latest. */
  template: { decision_count: number; last_decision: DecisionValue } | undefined;
  /** On the version's release: the latest decision on any of its locales' variants. */
  release: { last_decision: DecisionValue; last_decision_id: string } | undefined;
}

/** What the rules allow: a new decision (the `seq` it takes), or the one already given. */
export type Ruling = { kind: 'record'; seq: number } | { kind: 'unchanged'; decisionId: string };

/**
 * The rules of contract section 5, on the customer's standing: the one place they are written,
 * for a decision alone (`recordDecision`) and for a batch (`batch.ts`). Throws `DecisionRefused`.
 */
export function rule(
  standing: Standing,
  version: VersionWithCode,
  decision: DecisionValue,
): Ruling {
  if (decision === 'withdraw') {
    // Withdrawing must be as easy as giving: allow_reconsent does not apply to it.
    if (standing.template?.last_decision !== 'given')
      throw new DecisionRefused('nothingToWithdraw');
  } else if (standing.release && version.allow_reconsent === 0) {
    if (standing.release.last_decision !== decision) {
      throw new DecisionRefused('reconsentNotAllowed');
    }
    return { kind: 'unchanged', decisionId: standing.release.last_decision_id };
  }
  return { kind: 'record', seq: (standing.template?.decision_count ?? 0) + 1 };
}

/** A decision as asked: the version, who sent it, the customer, the body and its key. */
export interface AskedDecision {
  version: VersionWithCode;
  context: DecisionContext;
  customer: { id: string; lookup: string };
  request: DecisionRequest;
  idempotencyKey: string | undefined;
}

/** A new decision's row (its personal fields sealed) and its log leaf. */
export function newDecision(
  asked: AskedDecision,
  subject: OpenSubject,
  seq: number,
  now: string,
): { row: DecisionRow; leaf: string } {
  const { version, context, customer } = asked;
  const id = newId();
  const personal = { customer_id: customer.id, ip: context.ip, user_agent: context.userAgent };
  const row: DecisionRow = {
    tenant_id: context.tenantId,
    id,
    subject_id: subject.id,
    template_id: version.template_id,
    consent_version_id: version.id,
    version: publishedNumber(version),
    decision: asked.request.decision,
    seq,
    decided_at: now,
    api_key_id: context.apiKeyId,
    personal: sealPersonal(subject.key, id, personal),
    content_sha256: version.content_sha256,
    idempotency_key: asked.idempotencyKey ?? null,
    evidence_salt: newSalt(),
  };
  const leaf = leafOfDecision(
    { ...row, ...personal, evidence_salt: row.evidence_salt ?? '' },
    subject.salt,
  );
  return { row, leaf };
}

/**
 * Records one decision under the rules of contract section 5, in the caller's transaction, with
 * the per-customer states (on an SQLite file, a transaction shared with the decisions that
 * arrived with it: see `writer.ts`). Throws `DecisionRefused` when the rules refuse it, before
 * anything is written.
 */
export async function recordDecision(
  trx: Trx,
  vault: SubjectVault,
  asked: AskedDecision,
): Promise<DecisionOutcome> {
  const { version, context, customer, request } = asked;
  const { tenantId } = context;
  // One decision at a time per customer: the rules read the state they change, and an erasure
  // (which takes the same lock) never interleaves with a decision.
  await lockKey(trx, `subject:${tenantId}:${customer.lookup}`);
  // A customer the store does not know yet gets a subject only with their first decision.
  const known = await findSubject(trx, vault, tenantId, customer.lookup);
  const standing: Standing = {
    template: known && (await findTemplateState(trx, tenantId, known.id, version.template_id)),
    // A withdrawal does not read it.
    release:
      known && request.decision !== 'withdraw'
        ? await findVersionState(trx, tenantId, known.id, version.release_id)
        : undefined,
  };
  const ruling = rule(standing, version, request.decision);
  if (ruling.kind === 'unchanged') {
    const existing = await findDecision(trx, tenantId, ruling.decisionId);
    return {
      outcome: 'unchanged',
      decision: presentDecision(existing, customer.id, version.template_code),
    };
  }
  const now = nowIso();
  const subject =
    known ?? (await createSubject(trx, vault, tenantId, customer.id, customer.lookup, now));
  const { row, leaf } = newDecision(asked, subject, ruling.seq, now);
  await appendDecision(trx, row);
  const decision = presentDecision(row, customer.id, version.template_code);
  const wanted = await anySubscriber(trx, tenantId, `decision.${decision.decision}`, 'any');
  await writeJournal(trx, {
    leaves: [{ log_id: tenantId, record_id: row.id, leaf, queued_at: now }],
    events: wanted ? [decisionEvent(tenantId, subject, decision)] : [],
  });
  return { outcome: 'recorded', decision };
}

function publishedNumber(version: VersionWithCode): number {
  if (version.version === null) throw new Error(`Version ${version.id} has no number`);
  return version.version;
}

/** D of contract section 4. */
export function presentDecision(
  row: Pick<DecisionRow, 'id' | 'consent_version_id' | 'version' | 'decision' | 'decided_at'>,
  customerId: string,
  templateCode: string,
): RecordedDecision {
  return {
    decision_id: row.id,
    customer_id: customerId,
    template_code: templateCode,
    consent_version_id: row.consent_version_id,
    version: row.version,
    decision: row.decision,
    decided_at: row.decided_at,
  };
}
