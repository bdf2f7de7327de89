/**
 * A kind of record, declared once (docs/architecture.md, "Kinds of record" and "Adding a kind"). What differs
 * between kinds is data and small functions here; what is alike is one generic piece each: the
 * write path's recorder (`recorder.ts`: locks, standing, idempotency, the kind's rule, its rows,
 * the leaf, the event, the audit entry, in the writer's transaction), the log's audit, receipts
 * and their offline check, the evidence pack, the webhooks' payloads, erasure. Each of those
 * loops over the registry (`registry.ts`) and names no kind.
 *
 * Every part is optional: a kind has the parts its records need (an erasure's tombstones are
 * written by the erasure, not the write path; a part of the service that keeps something of a
 * customer, or tells of changes by webhook, without logging records, has only those parts).
 */
import type { Migration } from 'kysely';
import type { TObject, TSchema } from 'typebox';
import type { AuditEntry } from '../audit-trail/index.js';
import type { NewEvent, NewLeaf } from '../journal/index.js';
import type { Executor, Trx } from '../platform/db.js';
import type { LeafFormat, PublishedOn } from '../proof/index.js';
import type {
  OpenedRecord,
  OpenSubject,
  SealedRecord,
  SubjectsTable,
  SubjectVault,
} from '../subjects/index.js';
import type { LogProof } from './receipt-schemas.js';

/** A subject as a standing reads it (a look-up joined to `subjects`): nulls where none is. */
export interface StoredSubject {
  subject_id: string | null;
  wrapped_key: string | null;
  salt: string | null;
}

/** What every kind's standing holds beside its own: the subject, and whether its event is wanted. */
export interface Standing extends StoredSubject {
  /** Whether an endpoint of the tenant takes the record's event (journal's `subscribedSql`). */
  event_wanted: boolean;
}

/** A first answer, as an `Idempotency-Key` keeps it. */
export interface StoredAnswer<Body = unknown> {
  status: number;
  body: Body;
}

/** The outcome of a request whose key answered, within its window, the first request's answer. */
export interface Replayed<Body = unknown> {
  kind: 'replayed';
  answer: StoredAnswer<Body>;
}

/** A job's `Idempotency-Key`, and the hash of the request it came with. */
export interface Keyed {
  key: string;
  requestHash: string;
}

/** The stored record of a key, as a standing that reads it in its own statement returns it. */
export interface StoredKey {
  customer_lookup: string;
  request_hash: string;
  status_code: number;
  response_body: string;
  created_at: string;
}

/** A customer's new subject: its row, and the subject opened. */
export interface NewSubject {
  subject: OpenSubject;
  row: SubjectsTable;
}

/** The subjects a batch knows, for its kind's rule: none is kept until a record is. */
export interface SubjectBook {
  /**
   * The customer's subject: made or opened by an earlier job of the batch, else opened from the
   * standing; undefined when the store has none (never seen, or erased).
   */
  find(tenantId: string, lookup: string, standing: StoredSubject): OpenSubject | undefined;
  /** A new subject for a customer the store does not know yet. */
  create(tenantId: string, customerId: string, lookup: string, at: string): NewSubject;
}

/** An audit entry as a record leaves it: a person's act (a back-office user's change). */
export type RecordAudit = AuditEntry;

/** What recording one job leaves beside the kind's own rows. */
export interface RecordEffect {
  tenantId: string;
  /** The subject's keyed look-up (the batch keeps its subjects by it). */
  lookup: string;
  /** The record's id: its leaf's and its event's. */
  id: string;
  at: string;
  subject: OpenSubject;
  /** The subject's row when the batch made it for this record. */
  created?: SubjectsTable;
  /** The leaf the tenant's log appends. */
  leaf: string;
  /** Its webhook event, built only when an endpoint of the tenant takes it. */
  event?: (subject: OpenSubject) => NewEvent;
  /** A person's act, audited in the same transaction. */
  audit?: RecordAudit;
  /**
   * Another subject the record names (a signed-in visitor's customer), kept by the batch as the
   * record's own: its row when the batch made it for this record.
   */
  other?: { lookup: string; subject: OpenSubject; created?: SubjectsTable };
}

/**
 * A job decided by its kind's rule: its outcome, and when a record is made, what it leaves and
 * `commit`, which makes the record the batch's (nothing of a job is kept before: a job that fails
 * part-way fails alone, having written nothing).
 */
export type Decided<Outcome> =
  | { outcome: Outcome; record?: undefined }
  | { outcome: Outcome; record: RecordEffect; commit(): void };

/** A kind's own state over one batch: its rule, and its rows' writes. */
export interface KindBatch<Job, Outcome, S extends Standing> {
  decide(job: Job, standing: S, subjects: SubjectBook): Decided<Outcome>;
  /** The batch's own rows (records, current states), in the batch's transaction. */
  write(trx: Trx): Promise<void>;
}

/** How the write path records a batch of a kind's requests (`recorder.ts` runs it). */
export interface KindWrites<Job, Outcome, S extends Standing = Standing> {
  /** Whose record: the tenant and the subject's keyed look-up (the lock erasure takes too). */
  subjectOf(job: Job): { tenantId: string; lookup: string };
  /**
   * Another subject's look-up the job may name, of the same tenant (a signed-in visitor's
   * customer): its lock is taken as the subject's is, so that a record made for it never
   * interleaves with that subject's other writes or its erasure.
   */
  otherSubjectOf?(job: Job): string | undefined;
  /** Locks beside the subject's and the key's (a cookie choice's event id). */
  locks?(job: Job): readonly string[];
  /** The job's `Idempotency-Key`, for a kind whose requests take one. */
  idempotency?(job: Job): Keyed | undefined;
  /** The answer a key keeps of an outcome: what a retry within the window replays. */
  answer?(outcome: Outcome): StoredAnswer;
  /**
   * What the store holds for each job, in one read for the whole batch (one statement on
   * PostgreSQL), answered in the order asked. With `keysInStanding`, each standing carries its
   * key's record (`stored_key`), read in the same statement.
   */
  standings(trx: Trx, jobs: readonly Job[]): Promise<S[]>;
  keysInStanding?: boolean;
  batch(vault: SubjectVault): KindBatch<Job, Outcome, S>;
}

/** A stored record as the log's audit, receipts and the evidence pack read it. */
export interface KindRow extends SealedRecord {
  tenant_id: string;
}

/** What proves a kind's records: their table, their leaf's format, and how the audit rebuilds it. */
export interface KindRecords<Row extends { id: string } = { id: string }> {
  /** Its records' table: `(tenant_id, id)` names a record, `subject_id` its subject. */
  table: string;
  /**
   * The column that dates a record, for a table that grows without bound (a record a customer or
   * visitor makes): PostgreSQL's partitions by time split the table on it (`store partition`,
   * src/platform/partitions.ts). Absent for a table that stays small.
   */
  timeColumn?: string;
  /** The log's leaf format (`src/proof/`): its header tells the kind of a logged leaf. */
  format: LeafFormat;
  /** How the log's audit names one of its records in a finding. */
  noun: string;
  /** Whether a record keeps sealed personal fields (a tombstone keeps none). */
  sealed: boolean;
  /** The tenant's records of these ids (at most 500 at a time). */
  byIds(db: Executor, tenantId: string, ids: readonly string[]): Promise<Row[]>;
  /**
   * The leaf a stored record makes today: with its fields opened; once its subject was erased,
   * from the subject commitment and the evidence commitment (`kept`) that its erasure kept.
   * Null when its fields no longer open; '' when the record cannot make a leaf at all (a
   * changed field).
   */
  expectedLeaf(row: Row, opened: OpenedRecord | undefined, kept: string | undefined): string | null;
}

/** A record's personal fields, opened; undefined once its subject was erased. */
export type OpenedPersonal = (OpenedRecord & { state: 'open' }) | undefined;

/** The route that answers a record's receipt, as the OpenAPI document describes it. */
export interface ReceiptRoute {
  /** `/api/v1/channel-changes/:change_id/receipt` */
  path: string;
  /** The path parameter naming the record. */
  param: string;
  operationId: string;
  summary: string;
  description: string;
  /** The receipt's schema (`data` of the answer). */
  schema: TObject;
  /** The message of `404 1004` for an id the tenant has no record of. */
  notFound: string;
  /** What the `202` answer says is not in the log yet (`the decision`, `the change`). */
  queued: string;
}

/** A record's receipt: how it is found, and how it is shown with its proof. */
export interface KindReceipt<Row = never> {
  route: ReceiptRoute;
  find(db: Executor, tenantId: string, id: string): Promise<Row | undefined>;
  present(row: Row, proof: LogProof, personal: OpenedPersonal): unknown;
  /**
   * For a record made on a published text: what its logged leaf names (the receipt then shows
   * the publication leaf before it, `publishedOnLeaf`).
   */
  publishedOn?(leaf: string): PublishedOn | undefined;
}

/**
 * The evidence commitment a leaf's text carries, for the formats that have one (what an erasure
 * keeps of a record); undefined for another leaf or no leaf.
 */
export function leafEvidence(format: LeafFormat, text: string | undefined): string | undefined {
  const leaf = text === undefined ? undefined : format.parse(text);
  return (leaf as { evidence?: unknown } | undefined)?.evidence as string | undefined;
}

/** What a leaf of this format names of the published text its record was made on. */
export function publishedOnLeaf<Fields>(format: LeafFormat<Fields>) {
  return (text: string): PublishedOn | undefined => {
    const leaf = format.parse(text);
    return leaf === undefined ? undefined : format.publishedOn?.(leaf);
  };
}

/**
 * A kind's records in a customer's evidence pack, under `records/` in the folder its leaf format
 * names (where the pack's offline check looks for them).
 */
export interface KindEvidence<Row = never> {
  /** A customer's records of this kind, oldest first. */
  list(db: Executor, tenantId: string, subjectId: string): Promise<Row[]>;
  /** The version whose text the customer was shown, for a record made on one. */
  versionId?(row: Row): string | undefined;
}

/** How a delivered event names the person its record is of. */
export interface EventSubject {
  /** `customer_id`, or `visitor_id` for a website's visitor. */
  field: string;
  /**
   * What the id is sealed under in the stored event: the subject's own key (gone with an
   * erasure), or the service's account secrets (an erasure's own event).
   */
  sealedUnder: 'subject' | 'service';
}

/** One webhook event type: its summary and the schema of its `data`, for the OpenAPI document. */
export interface EventPayload {
  summary: string;
  data: TSchema;
}

/** The webhook events a kind sends. */
export interface KindEvents {
  /** Each type, in the order the OpenAPI document and the back-office list them. */
  types: Readonly<Record<string, EventPayload>>;
  /** The field of `data` naming the record, first in the payload (`decision_id`). */
  recordField?: string;
  subject?: EventSubject;
}

/** What an erasure hands each kind: the subject being erased, in the erasure's transaction. */
export interface ErasureScope {
  trx: Trx;
  tenantId: string;
  subjectId: string;
  /** The subject's keyed look-up (gone once the erasure commits). */
  lookup: string;
  /** The subject commitment its leaves carry, which the subject keeps. */
  commitment: string;
  erasedAt: string;
  /** Queues leaves for the tenant's log in the erasure's transaction. */
  log(leaves: readonly NewLeaf[]): void;
}

/**
 * What erasing a customer does to a kind's data, in the erasure's transaction: first every
 * kind's `record` (what the erasure itself logs: tombstones, read from states still there), then
 * every kind's `drop` (current states; the records stay, as the proof they were made). Each
 * answers what it counted, under the names in `counts` (0 when nothing was erased).
 */
export interface KindErasure {
  counts?: readonly string[];
  record?(scope: ErasureScope): Promise<Readonly<Record<string, number>> | undefined>;
  drop?(scope: ErasureScope): Promise<Readonly<Record<string, number>> | undefined>;
}

/** A change in a customer's history (their controls' changes), as the API lists it. */
export type HistoryEntry = { type: string; change_id: string; changed_at: string } & Record<
  string,
  unknown
>;

/** A page of the tenant's records in a range of time, oldest first, after a position. */
export interface HistoryPageQuery {
  from?: string | undefined;
  to?: string | undefined;
  after?: { changedAt: string; id: string } | undefined;
  limit: number;
}

/** A record as a download lists it: sealed, with its entry and who made it. */
export interface HistoryRow extends SealedRecord {
  changed_at: string;
  entry: HistoryEntry & {
    blocked: boolean;
    api_key_id: string | null;
    user_id: string | null;
    idempotency_key: string | null;
  };
}

/** A kind's records in a customer's history (`include=controls`) and in the tenant's downloads. */
export interface KindHistory {
  /** A customer's records of this kind (their subject's), newest first. */
  entries(db: Executor, tenantId: string, subjectId: string): Promise<HistoryEntry[]>;
  /** The tenant's records of this kind, a page at a time, oldest first. */
  page(db: Executor, tenantId: string, query: HistoryPageQuery): Promise<HistoryRow[]>;
}

/**
 * A kind of record: its name and the parts its records have. The registry holds kinds of every
 * job and row type; each part's own functions are typed in the kind's declaration.
 */
export interface RecordKind {
  /** The kind's name: the write path's jobs and the webhook events are routed by it. */
  name: string;
  writes?: KindWrites<never, unknown, Standing>;
  records?: KindRecords<{ id: string }>;
  receipt?: KindReceipt<SealedRecord>;
  evidence?: KindEvidence<SealedRecord>;
  events?: KindEvents;
  erasure?: KindErasure;
  history?: KindHistory;
  /**
   * The kind's own migrations, by name (ordered with the store's: name them after the last),
   * for a kind whose tables are not in the store's history (`src/platform/migrations`).
   */
  migrations?: Readonly<Record<string, Migration>>;
}

/** How a kind's service hands a job to the write path, and gets its outcome once committed. */
export interface KindWriter<Job, Outcome> {
  write(job: Job): Promise<Outcome>;
}
