/**
 * Data-subject requests (PDPA sections 30-36; docs/requests.md): opened by the customer's
 * systems through the API, by the customer on the preference centre, or by staff in the
 * back-office; each step a record in the tenant's log, with its receipt and its webhook event,
 * made in one transaction under the customer's lock. No HTTP here.
 */
import { type Actor, recordAudit } from '../audit-trail/index.js';
import { type Eraser, type ErasureResult, eraseCustomer } from '../erasure/index.js';
import { anySubscriber, type NewEvent, writeJournal } from '../journal/index.js';
import { addDays } from '../platform/calendar.js';
import type { Db, Trx } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/time.js';
import { newSalt } from '../proof/index.js';
import { type ControlContext, lockSubject, type Registry } from '../record-kinds/index.js';
import {
  findLiveSubjectRow,
  findSubjectRow,
  newSubject,
  type OpenSubject,
  openSubject,
  type PersonalFields,
  type SubjectVault,
  sealPersonal,
  sealText,
  storeNewSubjects,
} from '../subjects/index.js';
import { getTenantSettings } from '../tenants/index.js';
import { dueOn } from './clock.js';
import { createDelivery, type Delivery } from './delivery.js';
import { openedStepLeaf } from './leaf.js';
import {
  findRequest,
  insertNote,
  insertRequest,
  insertStep,
  type RequestChange,
  stepsOf,
  updateRequest,
} from './repository.js';
import {
  extensionDays,
  type LaterStep,
  type RefusalGround,
  type RequestKind,
  type RequestStep,
  stepInputProblems,
  stepRefusal,
} from './rules.js';
import {
  detailsBinding,
  noteBinding,
  openCustomerId,
  requestNotFound,
  requestSubject,
} from './sealed.js';
import type { RequestStepsTable, SubjectRequestRow, SubjectRequestsTable } from './table.js';
import { type DecisionPath, withdrawAll } from './withdrawals.js';

/**
 * Who takes a step, kept with it as evidence, as a control's change keeps it: an API key, or a
 * back-office user (audited as `auditedAs`), or the customer on the preference centre (`via`,
 * audited as the customer).
 */
export type RequestActor = ControlContext;

/** A new request: whose, which right, and what the customer wrote with it. */
export interface NewRequest {
  customerId: string;
  kind: RequestKind;
  details?: string | undefined;
}

/** A step on a request: `refused` names a ground and a reason; `extended` a reason. */
export interface StepInput {
  step: LaterStep;
  ground?: RefusalGround | undefined;
  reason?: string | undefined;
}

/** How a request came in. */
const viaOf = (actor: RequestActor) => actor.via ?? (actor.userId !== null ? 'backoffice' : 'api');

const personalOf = (actor: RequestActor, customerId: string): PersonalFields => ({
  customer_id: customerId,
  ip: actor.ip,
  user_agent: actor.userAgent,
  ...(actor.via ? { via: actor.via } : {}),
});

/** The request and the step just made, as the caller answers them. */
export interface StepMade {
  request: SubjectRequestRow;
  step: RequestStepsTable;
  customerId: string;
  /** What erasing the customer did, for an erasure request done. */
  erasure?: ErasureResult;
  /** The single-use link an access or portability request done is answered through. */
  delivery?: Delivery;
  /** The templates whose consents a withdrawal or objection request done withdrew. */
  withdrawn?: string[];
}

/**
 * Opens a request: its row, and its `received` step in the log. Its due date is 30 days after
 * the day it was received in the tenant's time zone. A customer the store does not know yet
 * gets a subject, as their first decision would give them.
 */
export async function openRequest(
  db: Db,
  vault: SubjectVault,
  actor: RequestActor,
  input: NewRequest,
): Promise<StepMade> {
  const { timeZone } = await getTenantSettings(db, actor.tenantId);
  const lookup = vault.lookup(actor.tenantId, input.customerId);
  return db.transaction().execute(async (trx) => {
    await lockSubject(trx, actor.tenantId, lookup);
    const now = nowIso();
    const subject = await subjectFor(trx, vault, actor.tenantId, input.customerId, lookup, now);
    const id = newId();
    const row: SubjectRequestsTable = {
      tenant_id: actor.tenantId,
      id,
      subject_id: subject.id,
      kind: input.kind,
      status: 'received',
      via: viaOf(actor),
      received_at: now,
      due_on: dueOn(now, timeZone),
      extended: 0,
      assignee_id: null,
      ground: null,
      reason: null,
      personal: sealPersonal(subject.key, id, personalOf(actor, input.customerId)),
      details: input.details ? sealText(subject.key, detailsBinding(id), input.details) : null,
      updated_at: now,
      closed_at: null,
    };
    await insertRequest(trx, row);
    const step = await logStep(trx, actor, subject, input.customerId, row, {
      step: 'received',
      at: now,
    });
    if (actor.auditedAs) {
      await recordAudit(trx, {
        ...actor.auditedAs,
        tenantId: actor.tenantId,
        action: 'request.received',
        target: id,
        details: { kind: input.kind, due_on: row.due_on },
      });
    }
    return { request: row, step, customerId: input.customerId };
  });
}

/**
 * Takes a step on a request, under its customer's lock: refused with `409 1005` when the
 * request's state does not allow it (`stepRefusal`), or when the customer was erased since (no
 * step can be proven of whom any more). `extended` moves the due date 30 days on; `done` and
 * `refused` close the request. An erasure request is done by erasing the customer
 * (`doneByErasure`), which needs the registry of kinds.
 */
export async function takeStep(
  db: Db,
  vault: SubjectVault,
  actor: RequestActor,
  requestId: string,
  input: StepInput,
  fulfil: Fulfilment = {},
): Promise<StepMade> {
  const problems = stepInputProblems(input);
  if (problems.length > 0) throw new AppError('invalidRequest', { details: problems });
  const found = await findRequest(db, actor.tenantId, requestId);
  if (!found) throw requestNotFound();
  if (input.step === 'done' && found.kind === 'erasure') {
    if (!fulfil.registry)
      throw new Error('an erasure request is done by erasing: pass the registry');
    const done = await doneByErasure(db, vault, fulfil.registry, actor, found, input);
    if (done) return done;
  }
  let withdrawn: string[] | undefined;
  if (input.step === 'done' && (found.kind === 'withdrawal' || found.kind === 'objection')) {
    if (!fulfil.decisions)
      throw new Error('a withdrawal request is done by withdrawing: pass the decisions');
    withdrawn = await doneByWithdrawing(db, vault, fulfil.decisions, actor, found);
  }
  const made = await db.transaction().execute(async (trx) => {
    const row = await lockedSubject(trx, actor.tenantId, found.subject_id);
    const subject = row ? openSubject(vault, actor.tenantId, row) : undefined;
    return applyStep(trx, actor, requestId, input, subject);
  });
  return withdrawn ? { ...made, withdrawn } : made;
}

/** What marking a request done needs beyond the store: the kinds (erasure), the decisions' path. */
export interface Fulfilment {
  registry?: Registry;
  decisions?: DecisionPath;
}

/**
 * A withdrawal or objection request done: every consent in force withdrawn first, under the API
 * key that took the step or, from the back-office, the one that vouched for the request (its
 * `received` step's, or the preference centre's link); then the step. Refused (`409 1005`, with
 * nothing withdrawn) when the request may not be done yet, or no key vouched for it.
 */
async function doneByWithdrawing(
  db: Db,
  vault: SubjectVault,
  decisions: DecisionPath,
  actor: RequestActor,
  request: SubjectRequestRow,
): Promise<string[]> {
  const steps = await stepsOf(db, actor.tenantId, request.id);
  refuseStep(request, steps, 'done');
  const subject = await requestSubject(db, vault, request);
  if (!subject) {
    throw new AppError('conflict', {
      message: 'The customer was erased; their request takes no further step.',
    });
  }
  const apiKeyId = actor.apiKeyId ?? steps[0]?.api_key_id ?? null;
  if (!apiKeyId) {
    throw new AppError('conflict', {
      message:
        "This request was opened in the back-office: withdraw the consents through the API or the customer's preference centre, then mark it done there.",
    });
  }
  return withdrawAll(
    db,
    vault,
    decisions,
    { tenantId: actor.tenantId, apiKeyId, ip: actor.ip, userAgent: actor.userAgent },
    openCustomerId(subject, request),
    request.id,
  );
}

/**
 * An erasure request done: the customer erased by crypto-shredding (docs/erasure.md) and the
 * `done` step recorded in the erasure's one transaction, after its tombstones, so that neither
 * is kept without the other. Undefined when the customer is erased already (the step is then
 * refused as for any erased customer).
 */
async function doneByErasure(
  db: Db,
  vault: SubjectVault,
  registry: Registry,
  actor: RequestActor,
  request: SubjectRequestRow,
  input: StepInput,
): Promise<StepMade | undefined> {
  const row = await findSubjectRow(db, actor.tenantId, request.subject_id);
  if (!row?.lookup || !row.wrapped_key || !row.salt) return undefined;
  const subject = openSubject(vault, actor.tenantId, row);
  const customerId = openCustomerId(subject, request);
  let made: StepMade | undefined;
  const by: Eraser = actor.auditedAs ?? {
    actorKind: 'tenant',
    actor: `api-key:${actor.apiKeyId}`,
    ip: actor.ip,
    userAgent: actor.userAgent,
  };
  const erasure = await eraseCustomer(db, vault, registry, actor.tenantId, customerId, by, {
    within: async (trx) => {
      made = await applyStep(trx, actor, request.id, input, subject);
    },
  });
  return made && erasure.erased ? { ...made, erasure } : undefined;
}

/** `409 1005` with the reason when the request, with these steps, cannot take `step` now. */
function refuseStep(
  request: SubjectRequestRow,
  steps: readonly { step: string }[],
  step: LaterStep,
): void {
  const refusal = stepRefusal(
    {
      status: request.status as RequestStep,
      extended: Number(request.extended) === 1,
      identityChecked: steps.some((s) => s.step === 'identity_checked'),
    },
    step,
  );
  if (refusal) throw new AppError('conflict', { message: refusal });
}

/** A step on a request whose customer's lock the caller holds (`subject`: undefined once erased). */
async function applyStep(
  trx: Trx,
  actor: RequestActor,
  requestId: string,
  input: StepInput,
  subject: OpenSubject | undefined,
): Promise<StepMade> {
  const request = await findRequest(trx, actor.tenantId, requestId);
  if (!request) throw requestNotFound();
  refuseStep(request, await stepsOf(trx, actor.tenantId, requestId), input.step);
  if (!subject) {
    throw new AppError('conflict', {
      message: 'The customer was erased; their request takes no further step.',
    });
  }
  const customerId = openCustomerId(subject, request);
  const now = nowIso();
  const change: RequestChange = { status: input.step, updated_at: now };
  if (input.step === 'extended') {
    change.extended = 1;
    change.due_on = addDays(request.due_on, extensionDays);
    change.reason = input.reason ?? null;
  }
  if (input.step === 'refused') {
    change.ground = input.ground ?? null;
    change.reason = input.reason ?? null;
  }
  if (input.step === 'done' || input.step === 'refused') change.closed_at = now;
  const next: SubjectRequestRow = { ...request, ...change };
  await updateRequest(trx, actor.tenantId, requestId, change);
  const step = await logStep(trx, actor, subject, customerId, next, {
    step: input.step,
    at: now,
    ground: input.step === 'refused' ? (input.ground ?? null) : null,
    reason: input.step === 'refused' || input.step === 'extended' ? (input.reason ?? null) : null,
  });
  if (actor.auditedAs) {
    await recordAudit(trx, {
      ...actor.auditedAs,
      tenantId: actor.tenantId,
      action: `request.${input.step}`,
      target: requestId,
      details: {
        kind: request.kind,
        due_on: next.due_on,
        ...(step.ground ? { ground: step.ground } : {}),
        ...(step.reason ? { reason: step.reason } : {}),
      },
    });
  }
  const delivered =
    input.step === 'done' && (request.kind === 'access' || request.kind === 'portability');
  const delivery = delivered
    ? await createDelivery(trx, actor.tenantId, requestId, now)
    : undefined;
  return { request: next, step, customerId, ...(delivery ? { delivery } : {}) };
}

async function subjectFor(
  trx: Trx,
  vault: SubjectVault,
  tenantId: string,
  customerId: string,
  lookup: string,
  now: string,
): Promise<OpenSubject> {
  const stored = await findLiveSubjectRow(trx, tenantId, lookup);
  if (stored) return openSubject(vault, tenantId, stored);
  const fresh = newSubject(vault, tenantId, customerId, lookup, now);
  await storeNewSubjects(trx, [fresh.row]);
  return fresh.subject;
}

/** The request's subject under its lock; undefined once erased. */
async function lockedSubject(trx: Trx, tenantId: string, subjectId: string) {
  const row = await findSubjectRow(trx, tenantId, subjectId);
  if (!row?.lookup || !row.wrapped_key || !row.salt) return undefined;
  await lockSubject(trx, tenantId, row.lookup);
  return row;
}

/** Writes a step: its row, its leaf, and its event when an endpoint of the tenant takes it. */
async function logStep(
  trx: Trx,
  actor: RequestActor,
  subject: OpenSubject,
  customerId: string,
  request: SubjectRequestRow | SubjectRequestsTable,
  made: { step: RequestStep; at: string; ground?: string | null; reason?: string | null },
): Promise<RequestStepsTable> {
  const id = newId();
  const personal = personalOf(actor, customerId);
  const row: RequestStepsTable = {
    tenant_id: actor.tenantId,
    id,
    request_id: request.id,
    subject_id: subject.id,
    kind: request.kind,
    step: made.step,
    due_on: request.due_on,
    ground: made.ground ?? null,
    reason: made.reason ?? null,
    api_key_id: actor.apiKeyId,
    user_id: actor.userId,
    personal: sealPersonal(subject.key, id, personal),
    evidence_salt: newSalt(),
    made_at: made.at,
  };
  await insertStep(trx, row);
  const type = `request.${made.step}`;
  const events: NewEvent[] = (await anySubscriber(trx, actor.tenantId, type, 'any'))
    ? [stepEvent(subject, customerId, request, row)]
    : [];
  await writeJournal(trx, {
    leaves: [
      {
        log_id: actor.tenantId,
        record_id: id,
        leaf: openedStepLeaf(row, personal, subject.salt),
        queued_at: made.at,
      },
    ],
    events,
  });
  return row;
}

/** A step's webhook event: the customer id sealed under their own key, as a decision's. */
function stepEvent(
  subject: OpenSubject,
  customerId: string,
  request: SubjectRequestRow | SubjectRequestsTable,
  step: RequestStepsTable,
): NewEvent {
  const id = newId();
  const sealed = sealPersonal(subject.key, id, {
    customer_id: customerId,
    ip: '',
    user_agent: null,
  });
  const data = {
    request_id: request.id,
    step_id: step.id,
    kind: request.kind,
    step: step.step,
    status: request.status,
    received_at: request.received_at,
    due_on: request.due_on,
    ground: step.ground,
    reason: step.reason,
    made_at: step.made_at,
    actor: { api_key_id: step.api_key_id, user_id: step.user_id },
  };
  return {
    tenant_id: step.tenant_id,
    id,
    type: `request.${step.step}`,
    record_id: step.id,
    subject_id: subject.id,
    data: JSON.stringify({ ...data, customer_sealed: sealed }),
    occurred_at: step.made_at,
  };
}

/** Who works on a request (a back-office user of the tenant), or nobody; audited. */
export async function assignRequest(
  db: Db,
  actor: RequestActor & { auditedAs: Actor },
  requestId: string,
  assigneeId: string | null,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const request = await findRequest(trx, actor.tenantId, requestId);
    if (!request) throw requestNotFound();
    if (request.assignee_id === assigneeId) return;
    await updateRequest(trx, actor.tenantId, requestId, {
      assignee_id: assigneeId,
      updated_at: nowIso(),
    });
    await recordAudit(trx, {
      ...actor.auditedAs,
      tenantId: actor.tenantId,
      action: 'request.assigned',
      target: requestId,
      details: { assignee_id: assigneeId },
    });
  });
}

/**
 * A staff member's note on a request, sealed under the customer's key (it may tell of them):
 * gone with it on erasure. Audited without its words.
 */
export async function addRequestNote(
  db: Db,
  vault: SubjectVault,
  actor: RequestActor & { auditedAs: Actor; userId: string },
  requestId: string,
  body: string,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const request = await findRequest(trx, actor.tenantId, requestId);
    if (!request) throw requestNotFound();
    const subjectRow = await lockedSubject(trx, actor.tenantId, request.subject_id);
    if (!subjectRow) {
      throw new AppError('conflict', {
        message: 'The customer was erased; nothing more is kept of them.',
      });
    }
    const subject = openSubject(vault, actor.tenantId, subjectRow);
    const id = newId();
    const now = nowIso();
    await insertNote(trx, {
      tenant_id: actor.tenantId,
      id,
      request_id: requestId,
      user_id: actor.userId,
      body: sealText(subject.key, noteBinding(id), body),
      written_at: now,
    });
    await updateRequest(trx, actor.tenantId, requestId, { updated_at: now });
    await recordAudit(trx, {
      ...actor.auditedAs,
      tenantId: actor.tenantId,
      action: 'request.noted',
      target: requestId,
      details: { note_id: id },
    });
  });
}
