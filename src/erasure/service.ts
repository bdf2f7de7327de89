import { type AuditEntry, recordAudit } from '../audit-trail/index.js';
import { anySubscriber, type NewLeaf, writeJournal } from '../journal/index.js';
import { type Db, type Executor, isPostgres } from '../platform/db.js';
import { newId } from '../platform/ids.js';
import { lockKey } from '../platform/locks.js';
import { nowIso } from '../platform/time.js';
import type { SubjectVault } from '../subjects/index.js';
import { findLiveSubjectRow } from '../subjects/index.js';
import { erasureEvent } from './event.js';
import { leafOfErasure } from './leaf.js';
import {
  checkpointWal,
  countSubjectCookieDecisions,
  countSubjectDecisions,
  erasureTotals,
  findDecidedTemplates,
  insertErasure,
  shredSubject,
} from './repository.js';

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

/** Who erases: the audit-log entry's actor (with their name, when they have one), address and user agent. */
export type Eraser = Pick<AuditEntry, 'actorKind' | 'actor' | 'actorName' | 'ip' | 'userAgent'>;

/**
 * Erases a customer by crypto-shredding (docs/erasure.md), in one transaction: their key, salt
 * and look-up are dropped, so the sealed customer id, IP addresses and user agents of their
 * decisions can never be opened again; their current states, idempotency records and sign-in
 * codes go; and an `erased` tombstone leaf per template joins the log, which, like every earlier
 * receipt, still verifies. The decisions themselves stay, as the proof that they were made. The customer's
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
    const subject = await findLiveSubjectRow(trx, tenantId, lookup);
    if (!subject) return undefined;
    const erasedAt = nowIso();
    const states = await findDecidedTemplates(trx, tenantId, subject.id);
    const leaves: NewLeaf[] = [];
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
      leaves.push({ log_id: tenantId, record_id: erasure.id, leaf, queued_at: erasedAt });
    }
    const told = await anySubscriber(trx, tenantId, 'customer.erased', 'enabled');
    const event = erasureEvent(vault.accountSecrets.seal, told, {
      tenantId,
      customerId,
      firstTombstoneId: leaves[0]?.record_id ?? null,
      at: erasedAt,
    });
    await writeJournal(trx, { leaves, events: [event] });
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

/** What erasing a website visitor did. */
export interface VisitorErasureResult {
  /** False when the tenant holds no choice of this visitor (nothing was left to erase). */
  erased: boolean;
  subject_id: string | null;
  cookie_decisions: number;
  erased_at: string | null;
}

/**
 * How many choices the tenant keeps of the visitor with this look-up: what `eraseVisitor` would
 * reach (0 when there is no live subject, never seen or already erased).
 */
export async function erasableVisitorChoices(
  db: Executor,
  tenantId: string,
  lookup: string,
): Promise<number> {
  const subject = await findLiveSubjectRow(db, tenantId, lookup);
  return subject ? countSubjectCookieDecisions(db, tenantId, subject.id) : 0;
}

/**
 * Erases a website visitor (the random id their browser kept in the `consentrix_consent`
 * cookie) by crypto-shredding, as a customer is: their key, salt and look-up go, so the visitor
 * id, address and user agent sealed in their cookie choices, and in the webhook events not yet
 * sent, can never be opened again. The choices stay, in the store and the decision log, as the
 * proof that they were made. A visitor holds no receipt (their page keeps only its id), so no
 * tombstone is written and no `customer.erased` event is sent; the audit log records the erasure
 * under the subject's random id. `lookup` is the visitor's keyed look-up (`cookies`' own).
 */
export async function eraseVisitor(
  db: Db,
  tenantId: string,
  lookup: string,
  by: Eraser,
): Promise<VisitorErasureResult> {
  const result = await db.transaction().execute(async (trx) => {
    // The choices' lock: none of this visitor's choices interleaves with the erasure.
    await lockKey(trx, `subject:${tenantId}:${lookup}`);
    const subject = await findLiveSubjectRow(trx, tenantId, lookup);
    if (!subject) return undefined;
    const erasedAt = nowIso();
    await shredSubject(trx, tenantId, subject.id, lookup, erasedAt);
    const choices = await countSubjectCookieDecisions(trx, tenantId, subject.id);
    await recordAudit(trx, {
      ...by,
      tenantId,
      action: 'cookie_visitor.erased',
      target: subject.id,
      details: { cookie_decisions: choices },
    });
    return { erased: true, subject_id: subject.id, cookie_decisions: choices, erased_at: erasedAt };
  });
  if (!result) return { erased: false, subject_id: null, cookie_decisions: 0, erased_at: null };
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

/**
 * What a look-up that finds nothing can honestly say about erasures: how many of the tenant's
 * customers were erased, when the latest was, and how many decisions stay in the log without
 * whose they were. Never whether a given customer id was among them: erasure keeps nothing that
 * links to the id (docs/erasure.md).
 */
export function erasureSummary(db: Executor, tenantId: string) {
  return erasureTotals(db, tenantId);
}
