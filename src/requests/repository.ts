import type { Executor, Trx } from '../platform/db.js';
import { resolveIdType, sealedColumn, sealedValue } from '../platform/id-type.js';
import type {
  RequestDeliveriesTable,
  RequestNoteRow,
  RequestNotesTable,
  RequestStepRow,
  RequestStepsTable,
  SubjectRequestRow,
  SubjectRequestsTable,
} from './table.js';

// A request's and a step's sealed columns (`SealedType`, src/platform/id-type.ts) are written
// and read through the store's types, read first (`resolveIdType`).

export async function insertRequest(trx: Trx, row: SubjectRequestsTable): Promise<void> {
  await resolveIdType(trx);
  await trx
    .insertInto('subject_requests')
    .values({ ...row, personal: sealedValue(trx, row.personal) })
    .execute();
}

export async function insertStep(trx: Trx, row: RequestStepsTable): Promise<void> {
  await resolveIdType(trx);
  await trx
    .insertInto('request_steps')
    .values({
      ...row,
      personal: sealedValue(trx, row.personal),
      evidence_salt: sealedValue(trx, row.evidence_salt),
    })
    .execute();
}

/** Every column of a request, its sealed one as base64. */
function requestColumns(db: Executor) {
  return [
    ...(
      [
        'tenant_id',
        'id',
        'subject_id',
        'kind',
        'status',
        'via',
        'received_at',
        'due_on',
        'extended',
        'assignee_id',
        'ground',
        'reason',
        'details',
        'updated_at',
        'closed_at',
      ] as const satisfies readonly Exclude<keyof SubjectRequestsTable, 'personal'>[]
    ).map((column) => `r.${column}` as const),
    sealedColumn(db, 'r.personal').as('personal'),
  ];
}

/** Every column of a step, its sealed ones as base64. */
function stepColumns(db: Executor) {
  return [
    ...(
      [
        'tenant_id',
        'id',
        'request_id',
        'subject_id',
        'kind',
        'step',
        'due_on',
        'ground',
        'reason',
        'api_key_id',
        'user_id',
        'made_at',
      ] as const satisfies readonly Exclude<keyof RequestStepsTable, 'personal' | 'evidence_salt'>[]
    ).map((column) => `s.${column}` as const),
    sealedColumn(db, 's.personal').as('personal'),
    sealedColumn(db, 's.evidence_salt').as('evidence_salt'),
  ];
}

export async function insertNote(trx: Trx, row: RequestNotesTable): Promise<void> {
  await trx.insertInto('request_notes').values(row).execute();
}

export async function findRequest(
  db: Executor,
  tenantId: string,
  id: string,
): Promise<SubjectRequestRow | undefined> {
  await resolveIdType(db);
  return db
    .selectFrom('subject_requests as r')
    .select(requestColumns(db))
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** What a step changes of its request. */
export type RequestChange = Partial<
  Pick<
    SubjectRequestsTable,
    | 'status'
    | 'due_on'
    | 'extended'
    | 'assignee_id'
    | 'ground'
    | 'reason'
    | 'updated_at'
    | 'closed_at'
  >
>;

export async function updateRequest(
  trx: Trx,
  tenantId: string,
  id: string,
  change: RequestChange,
): Promise<void> {
  await trx
    .updateTable('subject_requests')
    .set(change)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();
}

/** A request's steps, oldest first. */
export async function stepsOf(
  db: Executor,
  tenantId: string,
  requestId: string,
): Promise<RequestStepRow[]> {
  await resolveIdType(db);
  return db
    .selectFrom('request_steps as s')
    .select(stepColumns(db))
    .where('tenant_id', '=', tenantId)
    .where('request_id', '=', requestId)
    .orderBy('made_at')
    .orderBy('id')
    .execute();
}

/** A request's notes, oldest first. */
export function notesOf(
  db: Executor,
  tenantId: string,
  requestId: string,
): Promise<RequestNoteRow[]> {
  return db
    .selectFrom('request_notes')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('request_id', '=', requestId)
    .orderBy('written_at')
    .orderBy('id')
    .execute();
}

export async function stepsByIds(
  db: Executor,
  tenantId: string,
  ids: readonly string[],
): Promise<RequestStepRow[]> {
  await resolveIdType(db);
  return db
    .selectFrom('request_steps as s')
    .select(stepColumns(db))
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', ids)
    .execute();
}

/** A customer's steps (their subject's), oldest first. */
export async function subjectSteps(
  db: Executor,
  tenantId: string,
  subjectId: string,
): Promise<RequestStepRow[]> {
  await resolveIdType(db);
  return db
    .selectFrom('request_steps as s')
    .select(stepColumns(db))
    .where('tenant_id', '=', tenantId)
    .where('subject_id', '=', subjectId)
    .orderBy('made_at')
    .orderBy('id')
    .execute();
}

/** A customer's requests (their subject's), newest first. */
export async function subjectRequests(
  db: Executor,
  tenantId: string,
  subjectId: string,
): Promise<SubjectRequestRow[]> {
  await resolveIdType(db);
  return db
    .selectFrom('subject_requests as r')
    .select(requestColumns(db))
    .where('tenant_id', '=', tenantId)
    .where('subject_id', '=', subjectId)
    .orderBy('received_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/**
 * The tenant's requests for the queue: the open ones by due date (the most urgent first), or the
 * closed ones, most recently closed first; at most `limit`.
 */
export async function queuedRequests(
  db: Executor,
  tenantId: string,
  open: boolean,
  limit: number,
): Promise<SubjectRequestRow[]> {
  await resolveIdType(db);
  const base = db
    .selectFrom('subject_requests as r')
    .select(requestColumns(db))
    .where('tenant_id', '=', tenantId);
  return (
    open
      ? base.where('closed_at', 'is', null).orderBy('due_on').orderBy('received_at')
      : base.where('closed_at', 'is not', null).orderBy('closed_at', 'desc')
  )
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** The tenant's refusals made at or before `at`, oldest first (the section 39 record's). */
export async function refusalSteps(
  db: Executor,
  tenantId: string,
  at: string,
): Promise<RequestStepRow[]> {
  await resolveIdType(db);
  return db
    .selectFrom('request_steps as s')
    .select(stepColumns(db))
    .where('tenant_id', '=', tenantId)
    .where('step', '=', 'refused')
    .where('made_at', '<=', at)
    .orderBy('made_at')
    .orderBy('id')
    .execute();
}

export async function insertDelivery(trx: Trx, row: RequestDeliveriesTable): Promise<void> {
  await trx.insertInto('request_deliveries').values(row).execute();
}

/** The delivery of a token's hash, unused and unexpired at `now`. */
export function findUsableDelivery(db: Executor, tokenHash: string, now: string) {
  return db
    .selectFrom('request_deliveries')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

/** Marks a delivery used, once: true for the one caller that did. */
export async function useDelivery(db: Executor, id: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('request_deliveries')
    .set({ used_at: now })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Open requests of every tenant due on or before `day` (`YYYY-MM-DD`), the most urgent first,
 * but those told they are overdue already: nothing more is sent of them, and they would
 * otherwise fill every pass's `limit` before the requests still to be reminded of.
 */
export async function openRequestsDueBy(db: Executor, day: string, limit: number) {
  await resolveIdType(db);
  return db
    .selectFrom('subject_requests as r')
    .select(requestColumns(db))
    .where('r.closed_at', 'is', null)
    .where('r.due_on', '<=', day)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('request_reminders as m')
            .select('m.request_id')
            .whereRef('m.tenant_id', '=', 'r.tenant_id')
            .whereRef('m.request_id', '=', 'r.id')
            .where('m.reminder', '=', 'overdue'),
        ),
      ),
    )
    .orderBy('r.due_on')
    .orderBy('r.id')
    .limit(limit)
    .execute();
}

/** Takes a reminder to send: true for the one caller whose row it is (each is sent once). */
export async function claimReminder(
  db: Executor,
  row: { tenant_id: string; request_id: string; reminder: string; sent_at: string },
): Promise<boolean> {
  const result = await db
    .insertInto('request_reminders')
    .values(row)
    .onConflict((oc) => oc.columns(['tenant_id', 'request_id', 'reminder']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

/** Gives a reminder back when it could not be sent, for the next pass. */
export async function releaseReminder(
  db: Executor,
  key: { tenant_id: string; request_id: string; reminder: string },
): Promise<void> {
  await db
    .deleteFrom('request_reminders')
    .where('tenant_id', '=', key.tenant_id)
    .where('request_id', '=', key.request_id)
    .where('reminder', '=', key.reminder)
    .execute();
}
