import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { newSalt } from '../proof/index.js';
import type { OpenSubject } from '../subjects/index.js';
import { sealPersonal } from '../subjects/index.js';
import type { Catalog, VersionWithCode } from '../templates/index.js';
import { leafOfDecision } from './leaf.js';
import type { DecisionRequest, RecordedDecision } from './schemas.js';
import type { DecisionRow } from './table.js';

/** Who sent the decision: kept with it as evidence. */
export interface DecisionContext {
  tenantId: string;
  apiKeyId: string;
  ip: string;
  userAgent: string | null;
  /** Set when the customer made it on the preference centre: their evidence then says so. */
  via?: 'preference-centre';
}

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

/** A decision as asked: the version, who sent it, the customer, the body and its key. */
export interface AskedDecision {
  version: VersionWithCode;
  context: DecisionContext;
  customer: { id: string; lookup: string };
  request: DecisionRequest;
  idempotencyKey: string | undefined;
  /**
   * The template's validity period in calendar months, when the rules need it (a version that
   * does not allow re-consent); absent or null: none.
   */
  validityMonths?: number | null;
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
  const personal = {
    customer_id: customer.id,
    ip: context.ip,
    user_agent: context.userAgent,
    ...(context.via ? { via: context.via } : {}),
    ...(asked.request.explicit ? { explicit: asked.request.explicit } : {}),
    ...(asked.request.acted_by ? { acted_by: asked.request.acted_by } : {}),
  };
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
    idempotency_key: asked.idempotencyKey ?? null,
    evidence_salt: newSalt(),
  };
  const leaf = leafOfDecision(
    {
      ...row,
      ...personal,
      content_sha256: version.content_sha256,
      evidence_salt: row.evidence_salt ?? '',
    },
    subject.salt,
  );
  return { row, leaf };
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
