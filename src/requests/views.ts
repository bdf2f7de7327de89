/**
 * Requests as the API and the back-office read them: their customer id and the customer's own
 * words opened (null once the customer was erased), their clock in the tenant's time zone,
 * their steps and notes.
 */
import type { Executor } from '../platform/db.js';
import { openText, personalReader, type SubjectVault } from '../subjects/index.js';
import { getTenantSettings } from '../tenants/index.js';
import { clockOf } from './clock.js';
import {
  findRequest,
  notesOf,
  queuedRequests,
  refusalSteps,
  stepsOf,
  subjectRequests,
} from './repository.js';
import { detailsBinding, noteBinding, requestNotFound, requestSubject } from './sealed.js';
import type { RequestNoteRow, RequestStepRow, SubjectRequestRow } from './table.js';

/** A request as it stands, with its clock. */
export interface RequestView {
  request_id: string;
  customer_id: string | null;
  kind: string;
  status: string;
  via: string;
  received_at: string;
  due_on: string;
  days_left: number | null;
  overdue: boolean;
  extended: boolean;
  assignee_id: string | null;
  ground: string | null;
  reason: string | null;
  closed_at: string | null;
}

/** One step of a request, as its history lists it. */
export interface StepView {
  step_id: string;
  step: string;
  made_at: string;
  due_on: string;
  ground: string | null;
  reason: string | null;
  actor: { api_key_id: string | null; user_id: string | null };
  via?: string;
}

/** A staff member's note, opened. */
export interface NoteView {
  note_id: string;
  user_id: string;
  body: string | null;
  written_at: string;
}

/** A request with its details, steps and notes. */
export interface RequestDetail extends RequestView {
  details: string | null;
  steps: StepView[];
  notes: NoteView[];
}

function viewOf(row: SubjectRequestRow, customerId: string | null, zone: string): RequestView {
  return {
    request_id: row.id,
    customer_id: customerId,
    kind: row.kind,
    status: row.status,
    via: row.via,
    received_at: row.received_at,
    due_on: row.due_on,
    ...clockOf(row, zone),
    extended: Number(row.extended) === 1,
    assignee_id: row.assignee_id,
    ground: row.ground,
    reason: row.reason,
    closed_at: row.closed_at,
  };
}

const stepView = (row: RequestStepRow): StepView => ({
  step_id: row.id,
  step: row.step,
  made_at: row.made_at,
  due_on: row.due_on,
  ground: row.ground,
  reason: row.reason,
  actor: { api_key_id: row.api_key_id, user_id: row.user_id },
});

/** Requests with their customer ids opened, a batch of keys at a time. */
async function viewsOf(
  db: Executor,
  vault: SubjectVault,
  tenantId: string,
  rows: readonly SubjectRequestRow[],
): Promise<RequestView[]> {
  const { timeZone } = await getTenantSettings(db, tenantId);
  const opened = await personalReader(db, vault, tenantId)(rows);
  return rows.map((row, i) => viewOf(row, opened[i]?.personal?.customer_id ?? null, timeZone));
}

/** One request of the tenant with its details, steps and notes; `404 1004` when none. */
export async function getRequest(
  db: Executor,
  vault: SubjectVault,
  tenantId: string,
  id: string,
): Promise<RequestDetail> {
  const row = await findRequest(db, tenantId, id);
  if (!row) throw requestNotFound();
  const [view] = await viewsOf(db, vault, tenantId, [row]);
  const key = (await requestSubject(db, vault, row))?.key;
  const open = (binding: string, sealed: string | null) =>
    key && sealed !== null ? openText(key, binding, sealed) : null;
  const notes = await notesOf(db, tenantId, id);
  return {
    ...(view as RequestView),
    details: open(detailsBinding(id), row.details),
    steps: (await stepsOf(db, tenantId, id)).map(stepView),
    notes: notes.map((note: RequestNoteRow) => ({
      note_id: note.id,
      user_id: note.user_id,
      body: open(noteBinding(note.id), note.body),
      written_at: note.written_at,
    })),
  };
}

/** A customer's requests, newest first; none for a customer the tenant does not know. */
export async function customerRequests(
  db: Executor,
  vault: SubjectVault,
  tenantId: string,
  subjectId: string | undefined,
): Promise<RequestView[]> {
  if (!subjectId) return [];
  return viewsOf(db, vault, tenantId, await subjectRequests(db, tenantId, subjectId));
}

/** The queue: open requests, the most urgent first (or the closed, latest first). */
export async function requestQueue(
  db: Executor,
  vault: SubjectVault,
  tenantId: string,
  open: boolean,
  limit = 500,
): Promise<RequestView[]> {
  return viewsOf(db, vault, tenantId, await queuedRequests(db, tenantId, open, limit));
}

/** A refusal of a request, as the section 39 record lists it: nothing of whose it was. */
export interface Refusal {
  request_id: string;
  kind: string;
  refused_at: string;
  ground: string;
  reason: string;
}

/** The tenant's refusals made at or before `at`, oldest first. */
export async function refusalsBy(db: Executor, tenantId: string, at: string): Promise<Refusal[]> {
  return (await refusalSteps(db, tenantId, at)).map((step) => ({
    request_id: step.request_id,
    kind: step.kind,
    refused_at: step.made_at,
    ground: step.ground ?? '',
    reason: step.reason ?? '',
  }));
}
