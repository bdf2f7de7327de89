import { type AuditEntry, recordAudit } from '../audit-trail/index.js';
import { anySubscriber, type NewLeaf, writeJournal } from '../journal/index.js';
import { type Db, type Executor, isPostgres, type Trx } from '../platform/db.js';
import { nowIso } from '../platform/time.js';
import {
  forgetSubjectKeys,
  leafEvidence,
  lockSubject,
  type Registry,
} from '../record-kinds/index.js';
import type { SealedRecord, SubjectVault } from '../subjects/index.js';
import {
  findLiveSubjectRow,
  keepErasedEvidence,
  personalReader,
  shredSubject,
} from '../subjects/index.js';
import { erasureEvent } from './event.js';
import { checkpointWal, erasureTotals, findSubjectRecordIds } from './repository.js';

/** Who erases: the audit-log entry's actor (with their name, when they have one), address and user agent. */
export type Eraser = Pick<AuditEntry, 'actorKind' | 'actor' | 'actorName' | 'ip' | 'userAgent'>;

/** A subject as an erasure found it, under its lock, in the erasure's transaction. */
export interface ErasedSubject {
  trx: Trx;
  id: string;
  erasedAt: string;
  /** What the kinds counted, under their names, in the registry's order. */
  counts: Record<string, number>;
  /** The leaves the kinds queued (tombstones). */
  leaves: readonly NewLeaf[];
}

/**
 * Erases one subject by crypto-shredding, in one transaction, under the lock every write of
 * theirs takes: every kind's erasure parts (what the erasure logs, then the current states it
 * drops; the records stay, as the proof that they were made), the idempotency records kept by
 * their look-up, then the subject's key, salt and look-up; `then` adds what the caller's erasure
 * says of itself (an event, the audit entry) in the same transaction; last, the evidence
 * commitment of each of their records is kept (`evidenceOfSubject`). Undefined when the tenant
 * holds no live subject of this look-up (never seen, or erased already).
 */
export async function eraseSubject<R>(
  db: Db,
  vault: SubjectVault,
  registry: Registry,
  tenantId: string,
  lookup: string,
  then: (erased: ErasedSubject) => Promise<R>,
): Promise<R | undefined> {
  const result = await db.transaction().execute(async (trx) => {
    await lockSubject(trx, tenantId, lookup);
    const subject = await findLiveSubjectRow(trx, tenantId, lookup);
    if (!subject) return undefined;
    const erasedAt = nowIso();
    const leaves: NewLeaf[] = [];
    const scope = {
      trx,
      tenantId,
      subjectId: subject.id,
      lookup,
      commitment: subject.commitment,
      erasedAt,
      log: (queued: readonly NewLeaf[]) => leaves.push(...queued),
    };
    const counted = new Map<string, Readonly<Record<string, number>>>();
    for (const step of ['record', 'drop'] as const) {
      for (const kind of registry.kinds) {
        const counts = await kind.erasure?.[step]?.(scope);
        if (counts) counted.set(kind.name, { ...counted.get(kind.name), ...counts });
      }
    }
    await forgetSubjectKeys(trx, tenantId, lookup);
    await shredSubject(trx, tenantId, subject.id, erasedAt);
    const counts = Object.assign({}, ...registry.kinds.map((kind) => counted.get(kind.name)));
    const result = await then({ trx, id: subject.id, erasedAt, counts, leaves });
    // Every record of theirs, those `then` made under the key it holds (a request's last step)
    // included, opened by the key as read before it went.
    const open = personalReader(trx, vault, tenantId, [subject]);
    const evidence = await evidenceOfSubject(trx, open, registry, tenantId, subject.id);
    await keepErasedEvidence(trx, tenantId, evidence);
    return result;
  });
  if (result !== undefined && !isPostgres(db)) await emptyWal(db);
  return result;
}

/**
 * The evidence commitment of each of a subject's records, of every kind that seals personal
 * fields, by record id: its leaf rebuilt with the fields opened by the subject's key. Kept once
 * the key is gone, it is what lets the log's audit rebuild each of these leaves whole, the
 * evidence included (docs/erasure.md). A record whose fields do not open (a tampered one) has
 * none: the audit names it.
 */
async function evidenceOfSubject(
  trx: Trx,
  open: ReturnType<typeof personalReader>,
  registry: Registry,
  tenantId: string,
  subjectId: string,
): Promise<Map<string, string>> {
  const evidence = new Map<string, string>();
  for (const kind of registry.kinds) {
    const records = kind.records;
    if (!records?.sealed) continue;
    const ids = await findSubjectRecordIds(trx, records.table, tenantId, subjectId);
    for (let start = 0; start < ids.length; start += 500) {
      const rows = await records.byIds(trx, tenantId, ids.slice(start, start + 500));
      const opened = await open(rows as unknown as SealedRecord[]);
      rows.forEach((row, i) => {
        const leaf =
          opened[i]?.state === 'open' ? records.expectedLeaf(row, opened[i], undefined) : null;
        const commitment = leafEvidence(records.format, leaf ?? undefined);
        if (commitment) evidence.set(row.id, commitment);
      });
    }
  }
  return evidence;
}

/** What erasing a customer did: `erased`, their subject, each kind's counts, and when. */
export type ErasureResult = {
  /** False when the tenant holds no record of this customer (nothing was left to erase). */
  erased: boolean;
  /** The random id the customer's records keep (nothing links it to the customer any more). */
  subject_id: string | null;
  erased_at: string | null;
} & Record<string, number | boolean | string | null>;

/**
 * Erases a customer (docs/erasure.md): `eraseSubject`, and the `customer.erased` event, ordered
 * by their first tombstone in the decision log. The customer's next decision starts a new
 * record. The audit log records the erasure under the subject's random id, never the customer id.
 */
export async function eraseCustomer(
  db: Db,
  vault: SubjectVault,
  registry: Registry,
  tenantId: string,
  customerId: string,
  by: Eraser,
  options: {
    /** What the caller records of the erasure in its own transaction (a request's last step). */
    within?: (trx: Trx) => Promise<void>;
  } = {},
): Promise<ErasureResult> {
  const lookup = vault.lookup(tenantId, customerId);
  const result = await eraseSubject(db, vault, registry, tenantId, lookup, async (erased) => {
    const told = await anySubscriber(erased.trx, tenantId, 'customer.erased', 'enabled');
    const event = erasureEvent(vault.accountSecrets.seal, told, {
      tenantId,
      customerId,
      firstTombstoneId: erased.leaves[0]?.record_id ?? null,
      at: erased.erasedAt,
    });
    await writeJournal(erased.trx, { leaves: erased.leaves, events: [event] });
    await recordAudit(erased.trx, {
      ...by,
      tenantId,
      action: 'customer.erased',
      target: erased.id,
      details: erased.counts,
    });
    await options.within?.(erased.trx);
    return {
      erased: true,
      subject_id: erased.id,
      ...erased.counts,
      erased_at: erased.erasedAt,
    };
  });
  return result ?? { erased: false, subject_id: null, ...zeroCounts(registry), erased_at: null };
}

/** Every kind's counts at 0: what an erasure that found nothing answers. */
function zeroCounts(registry: Registry): Record<string, number> {
  return Object.fromEntries(
    registry.kinds.flatMap((kind) => (kind.erasure?.counts ?? []).map((name) => [name, 0])),
  );
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
