import type { Trx } from '../platform/db.js';
import { evidenceCommitment, leafText, newSalt, subjectCommitment } from '../proof/leaf.js';

/** What a decision gives its leaf. */
export interface LoggedDecision {
  tenant_id: string;
  id: string;
  customer_id: string;
  template_id: string;
  version: number;
  content_sha256: string;
  decision: 'given' | 'reject' | 'withdraw';
  decided_at: string;
  api_key_id: string;
  ip: string;
  user_agent: string | null;
  evidence_salt: string;
}

/**
 * The leaf a decision makes, from its record and the customer's salt: what the queue appends,
 * and what the audit recomputes from the store to compare with the log.
 */
export function leafOfDecision(row: LoggedDecision, subjectSalt: string): string {
  return leafText({
    recordId: row.id,
    time: row.decided_at,
    templateId: row.template_id,
    version: Number(row.version),
    contentSha256: row.content_sha256,
    decision: row.decision,
    subject: subjectCommitment(subjectSalt, row.customer_id),
    evidence: evidenceCommitment(row.evidence_salt, {
      ip: row.ip,
      userAgent: row.user_agent,
      apiKeyId: row.api_key_id,
    }),
  });
}

/**
 * Queues the decision's leaf in the decision's own transaction: a decision that commits is in
 * the queue, so none can be acknowledged and then missing from the log. The tenant's log has the
 * tenant's id.
 */
export async function queueLeaf(trx: Trx, row: LoggedDecision): Promise<void> {
  const salt = await subjectSalt(trx, row.tenant_id, row.customer_id, row.decided_at);
  await trx
    .insertInto('tlog_pending')
    .values({
      log_id: row.tenant_id,
      record_id: row.id,
      leaf: leafOfDecision(row, salt),
      queued_at: row.decided_at,
    })
    .execute();
}

/** The customer's salt, made on their first decision (two first decisions at once agree on one). */
async function subjectSalt(
  trx: Trx,
  tenantId: string,
  customerId: string,
  now: string,
): Promise<string> {
  const read = () =>
    trx
      .selectFrom('log_subjects')
      .select('salt')
      .where('tenant_id', '=', tenantId)
      .where('customer_id', '=', customerId)
      .executeTakeFirst();
  const existing = await read();
  if (existing) return existing.salt;
  const salt = newSalt();
  const inserted = await trx
    .insertInto('log_subjects')
    .values({ tenant_id: tenantId, customer_id: customerId, salt, created_at: now })
    .onConflict((oc) => oc.columns(['tenant_id', 'customer_id']).doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return salt;
  const other = await read();
  if (!other) throw new Error('log subject vanished while being created');
  return other.salt;
}
