import { type AuditEntry, recordAudit } from '../audit/service.js';
import { leafOfErasure, queueLeaf } from '../log/queue.js';
import { type Db, isPostgres } from '../platform/db.js';
import { newId } from '../platform/ids.js';
import { lockKey } from '../platform/locks.js';
import { nowIso } from '../platform/time.js';
import { queueErasureEvent } from '../webhooks/outbox.js';
import {
  checkpointWal,
  countSubjectDecisions,
  findDecidedTemplates,
  findLiveSubject,
  insertErasure,
  shredSubject,
} from './repository.js';
import type { SubjectVault } from './vault.js';

export interface ErasureResult {
  /** False when the tenant holds no record of this customer (nothing was left to erase). */
  erased: boolean;
  /** The random id the customer's records keep (nothing links it to the customer any more). */
  subject_id: string | null;
  decisions: number;
  /** One tombstone leaf per template the customer had decided on. */
  tombstones: number;
  erased_at: string | null;
}

/** Who erases: the audit-log entry's actor, address and user agent. */
export type Eraser = Pick<AuditEntry, 'actorKind' | 'actor' | 'ip' | 'userAgent'>;

/**
 * Erases a customer by crypto-shredding (docs/erasure.md), in one transaction: their key, salt
 * and look-up are dropped, so the sealed customer id, IP addresses and user agents of their
 * decisions can never be opened again; their current states and idempotency records go; and an
 * `erased` tombstone leaf per template joins the log, which, like every earlier receipt, still
 * verifies. The decisions themselves stay, as the proof that they were made. The customer's
 * next decision starts a new record. The audit log records the erasure under the subject's
 * random id, never the customer id.
 */
export async function eraseCustomer(
  db: Db,
  vault: SubjectVault,
  tenantId: string,
  customerId: string,
  by: Eraser,
): Promise<ErasureResult> {
  const lookup = vault.lookup(tenantId, customerId);
  const result = await db.transaction().execute(async (trx) => {
    // The decisions' lock: no decision of this customer interleaves with the erasure.
    await lockKey(trx, `subject:${tenantId}:${lookup}`);
    const subject = await findLiveSubject(trx, tenantId, lookup);
    if (!subject) return undefined;
    const erasedAt = nowIso();
    const states = await findDecidedTemplates(trx, tenantId, subject.id);
    let firstTombstone: string | null = null;
    for (const state of states) {
      const erasure = {
        tenant_id: tenantId,
        id: newId(),
        subject_id: subject.id,
        template_id: state.template_id,
        version: Number(state.version),
        content_sha256: state.content_sha256,
        erased_at: erasedAt,
      };
      await insertErasure(trx, erasure);
      const leaf = leafOfErasure(erasure, subject.commitment);
      await queueLeaf(trx, tenantId, erasure.id, leaf, erasedAt);
      firstTombstone ??= erasure.id;
    }
    const seal = vault.accountSecrets.seal;
    await queueErasureEvent(trx, seal, tenantId, customerId, firstTombstone, erasedAt);
    await shredSubject(trx, tenantId, subject.id, lookup, erasedAt);
    const decisions = await countSubjectDecisions(trx, tenantId, subject.id);
    const erased = {
      erased: true,
      subject_id: subject.id,
      decisions,
      tombstones: states.length,
      erased_at: erasedAt,
    };
    await recordAudit(trx, {
      ...by,
      tenantId,
      action: 'customer.erased',
      target: subject.id,
      details: { decisions: erased.decisions, tombstones: erased.tombstones },
    });
    return erased;
  });
  if (!result) {
    return { erased: false, subject_id: null, decisions: 0, tombstones: 0, erased_at: null };
  }
  if (!isPostgres(db)) await emptyWal(db);
  return result;
}

/**
 * SQLite: the pages the erasure overwrote (secure_delete) still have copies in the WAL until a
 * checkpoint; copy them back and empty the WAL now. Another process reading (a second worker,
 * or the server while the command line erases) can hold it up for a moment: try again a little.
 */
async function emptyWal(db: Db): Promise<void> {
  for (let attempt = 0; attempt < 20; attempt++) {
    if (await checkpointWal(db)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
