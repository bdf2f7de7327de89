import type { Executor, Trx } from '../platform/db.js';
import { newId } from '../platform/ids.js';
import { newSalt, subjectCommitment } from '../proof/index.js';
import { openPersonal, type PersonalFields } from './personal.js';
import {
  findErasedEvidence,
  findLiveSubject,
  findSubjectById,
  findSubjects,
  insertErasedEvidence,
  insertSubjects,
  shredSubjectRow,
} from './repository.js';
import type { SubjectsTable } from './table.js';
import type { SubjectVault } from './vault.js';

/** A customer as their records are written and read: their random id, key and salt. */
export interface OpenSubject {
  id: string;
  key: Buffer;
  /** base64 salt of the subject commitment in their leaves. */
  salt: string;
}

/** The customer's random id, if they have a record that was not erased. */
export async function findSubjectId(
  db: Executor,
  vault: SubjectVault,
  tenantId: string,
  customerId: string,
): Promise<string | undefined> {
  return (await findCustomerSubject(db, vault, tenantId, customerId))?.id;
}

/**
 * The customer's subject with its sealed key, unless erased: for a reader that then opens their
 * records (`personalReader`'s `read`), one query fewer than `findSubjectId` and a read of keys.
 */
export function findCustomerSubject(
  db: Executor,
  vault: SubjectVault,
  tenantId: string,
  customerId: string,
): Promise<StoredSubjectKey | undefined> {
  return findLiveSubject(db, tenantId, vault.lookup(tenantId, customerId));
}

/** A subject by its random id: its look-up, sealed key and salt (nulls once erased). */
export function findSubjectRow(db: Executor, tenantId: string, id: string) {
  return findSubjectById(db, tenantId, id);
}

/** The customer's row with this look-up, unless erased: their id, sealed key and commitment. */
export function findLiveSubjectRow(db: Executor, tenantId: string, lookup: string) {
  return findLiveSubject(db, tenantId, lookup);
}

/**
 * A batch's new subjects (src/decisions/record-decisions.ts). The caller holds their customers'
 * locks, so no other writer can have stored one of them meanwhile.
 */
export async function storeNewSubjects(trx: Trx, rows: readonly SubjectsTable[]): Promise<void> {
  const kept = await insertSubjects(trx, rows);
  if (kept !== rows.length) throw new Error('a new subject was already stored');
}

/**
 * Crypto-shredding (docs/erasure.md): the subject's key, salt and look-up are dropped, so
 * nothing sealed under the key can be opened again; the caller holds the subject's lock.
 */
export function shredSubject(trx: Trx, tenantId: string, subjectId: string, erasedAt: string) {
  return shredSubjectRow(trx, tenantId, subjectId, erasedAt);
}

/**
 * The evidence commitment of each record of an erased subject, by record id, as the erasure
 * computed it with the record's fields still open: kept, so that each record's leaf can still be
 * rebuilt whole once the fields are gone.
 */
export function keepErasedEvidence(
  trx: Trx,
  tenantId: string,
  evidence: ReadonlyMap<string, string>,
): Promise<void> {
  return insertErasedEvidence(trx, tenantId, evidence);
}

/** The evidence commitments kept at their subject's erasure of these records, by record id. */
export async function erasedEvidence(
  db: Executor,
  tenantId: string,
  ids: readonly string[],
): Promise<Map<string, string>> {
  const kept = new Map<string, string>();
  for (let start = 0; start < ids.length; start += 500) {
    for (const row of await findErasedEvidence(db, tenantId, ids.slice(start, start + 500))) {
      kept.set(row.record_id, row.evidence);
    }
  }
  return kept;
}

/** A customer's new subject: its row (the key wrapped for the store) and the subject opened. */
export function newSubject(
  vault: SubjectVault,
  tenantId: string,
  customerId: string,
  lookup: string,
  now: string,
): { row: SubjectsTable; subject: OpenSubject } {
  const id = newId();
  const { key, wrapped } = vault.newKey(tenantId, id);
  const salt = newSalt();
  const row: SubjectsTable = {
    tenant_id: tenantId,
    id,
    lookup,
    wrapped_key: wrapped,
    salt,
    commitment: subjectCommitment(salt, customerId),
    created_at: now,
    erased_at: null,
  };
  return { row, subject: { id, key, salt } };
}

/** A stored subject opened: its key unwrapped. Throws for an erased one. */
export function openSubject(
  vault: SubjectVault,
  tenantId: string,
  row: { id: string; wrapped_key: string | null; salt: string | null },
): OpenSubject {
  if (row.wrapped_key === null || row.salt === null) {
    throw new Error(`subject ${row.id} is erased but still has its look-up`);
  }
  return { id: row.id, key: vault.unwrap(tenantId, row.id, row.wrapped_key), salt: row.salt };
}

/** A batch's stored subject (a look-up joined to `subjects`), opened; undefined when none. */
export function openStoredSubject(
  vault: SubjectVault,
  tenantId: string,
  stored: { subject_id: string | null; wrapped_key: string | null; salt: string | null },
): OpenSubject | undefined {
  if (stored.subject_id === null) return undefined;
  return openSubject(vault, tenantId, { ...stored, id: stored.subject_id });
}

/** A record's sealed personal fields, as stored with it. */
export interface SealedRecord {
  id: string;
  subject_id: string;
  personal: string;
}

/**
 * What a record's subject still allows: its fields while the customer's key exists; none once
 * they were erased; none either when the key, the sealed bytes or the subject were tampered with.
 */
export type OpenedRecord =
  | { state: 'open'; personal: PersonalFields; salt: string; commitment: string }
  | { state: 'erased'; personal: null; salt: null; commitment: string }
  | { state: 'unreadable'; personal: null; salt: null; commitment: string | null };

type KnownSubject =
  | { key: Buffer; salt: string; commitment: string }
  | { key: 'erased' | 'unreadable'; commitment: string };

const keysKept = 10_000;

/**
 * Opens the personal fields of a tenant's records, a batch at a time, unsealing each customer's
 * key once (and at most `keysKept` at a time, for exports of every customer).
 */
export function personalReader(
  db: Executor,
  vault: SubjectVault,
  tenantId: string,
  read: readonly StoredSubjectKey[] = [],
) {
  const open = personalOpener(vault, tenantId, read);
  return (records: readonly SealedRecord[]) => open(db, records);
}

/** A subject's row as read with its key: what opening its records needs. */
export interface StoredSubjectKey {
  id: string;
  wrapped_key: string | null;
  salt: string | null;
  commitment: string;
}

/**
 * `personalReader` whose batches each say where their customers' keys are read: a download
 * that reads each page on a replica (`readOn`) keeps the keys it unsealed from page to page.
 */
export function personalOpener(
  vault: SubjectVault,
  tenantId: string,
  /** Subjects the caller has just read (its look-up's row): not read again. */
  read: readonly StoredSubjectKey[] = [],
) {
  const subjects = new Map<string, KnownSubject>(
    read.map((row) => [row.id, known(vault, tenantId, row)]),
  );
  return async function open(
    db: Executor,
    records: readonly SealedRecord[],
  ): Promise<OpenedRecord[]> {
    const ids = [...new Set(records.map((r) => r.subject_id))];
    let missing = ids.filter((id) => !subjects.has(id));
    if (subjects.size + missing.length > keysKept) {
      subjects.clear();
      missing = ids;
    }
    for (let start = 0; start < missing.length; start += 500) {
      for (const row of await findSubjects(db, tenantId, missing.slice(start, start + 500))) {
        subjects.set(row.id, known(vault, tenantId, row));
      }
    }
    return records.map((record) => openRecord(record, subjects.get(record.subject_id)));
  };
}

function known(
  vault: SubjectVault,
  tenantId: string,
  row: { id: string; wrapped_key: string | null; salt: string | null; commitment: string },
): KnownSubject {
  const { commitment } = row;
  if (row.wrapped_key === null || row.salt === null) return { key: 'erased', commitment };
  try {
    return { key: vault.unwrap(tenantId, row.id, row.wrapped_key), salt: row.salt, commitment };
  } catch {
    return { key: 'unreadable', commitment };
  }
}

function openRecord(record: SealedRecord, subject: KnownSubject | undefined): OpenedRecord {
  if (!subject) return { state: 'unreadable', personal: null, salt: null, commitment: null };
  const { commitment } = subject;
  if (subject.key === 'erased') return { state: 'erased', personal: null, salt: null, commitment };
  if (subject.key === 'unreadable' || !('salt' in subject)) {
    return { state: 'unreadable', personal: null, salt: null, commitment };
  }
  try {
    const personal = openPersonal(subject.key, record.id, record.personal);
    return { state: 'open', personal, salt: subject.salt, commitment };
  } catch {
    return { state: 'unreadable', personal: null, salt: null, commitment };
  }
}
