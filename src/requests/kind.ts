/**
 * A data-subject request's steps as a kind of record: each step a leaf in the tenant's log
 * (`consent-log/request/v1`), with its receipt, its section of the customer's evidence pack and
 * its webhook event. Steps are written by `service.ts` in its own transaction, not through the
 * write path: they are few, and each is a person's act.
 */
import { Type } from 'typebox';
import type { Executor } from '../platform/db.js';
import { requestLeafFormat } from '../proof/index.js';
import {
  ControlOpening,
  CustomerIdOrNull,
  customerRecordOpening,
  EventActor,
  EventDateTime,
  type EventPayload,
  LogIndex,
  type LogProof,
  logProof,
  type OpenedPersonal,
  type RecordKind,
} from '../record-kinds/index.js';
import { openedStepLeaf, reasonHash, stepLeaf } from './leaf.js';
import { stepsByIds, subjectSteps } from './repository.js';
import { refusalGroundNames, requestKindNames, requestSteps } from './rules.js';
import type { RequestStepRow } from './table.js';

const KindField = Type.Union(
  requestKindNames.map((k) => Type.Literal(k)),
  { description: 'The right the request exercises' },
);
const StepField = Type.Union(
  requestSteps.map((s) => Type.Literal(s)),
  { description: 'The step' },
);
const GroundField = Type.Union([...refusalGroundNames.map((g) => Type.Literal(g)), Type.Null()], {
  description: "A refusal's PDPA ground; null for any other step",
});
const ReasonField = Type.Union([Type.String(), Type.Null()], {
  description: "A refusal's or an extension's reason; null for any other step",
});

/** The step a receipt states: the leaf's fields, the reason in words, whose. */
const StepStated = Type.Object(
  {
    step_id: Type.String({ format: 'uuid' }),
    request_id: Type.String({ format: 'uuid' }),
    kind: KindField,
    step: StepField,
    made_at: Type.String({ format: 'date-time' }),
    due_on: Type.String({ format: 'date', description: 'The due date after this step' }),
    ground: GroundField,
    reason: ReasonField,
    reason_sha256: Type.Union([Type.String(), Type.Null()], {
      description: "Hex SHA-256 of the reason's UTF-8, as the leaf commits to it",
    }),
    customer_id: Type.Union([Type.String(), Type.Null()], {
      description: 'Null once the customer was erased',
    }),
  },
  { description: 'The step' },
);

const StepReceipt = Type.Object({
  request_step: StepStated,
  ...logProof(requestLeafFormat.header),
  opening: ControlOpening,
});

const stepEvent = (summary: string): EventPayload => ({
  summary,
  data: Type.Object(
    {
      step_id: Type.String({ format: 'uuid', description: "The step's id (its receipt's)." }),
      customer_id: CustomerIdOrNull,
      request_id: Type.String({ format: 'uuid' }),
      kind: KindField,
      step: StepField,
      status: StepField,
      received_at: EventDateTime,
      due_on: Type.String({ format: 'date', description: 'The due date after this step' }),
      ground: GroundField,
      reason: ReasonField,
      made_at: EventDateTime,
      actor: EventActor,
      log_index: LogIndex,
    },
    { description: 'A step of a data-subject request, as its leaf in the log records it.' },
  ),
});

export const requestStepsKind = {
  name: 'request-step',
  records: {
    table: 'request_steps',
    format: requestLeafFormat,
    noun: 'request step',
    sealed: true,
    byIds: (db: Executor, tenantId: string, ids: readonly string[]) =>
      stepsByIds(db, tenantId, ids),
    expectedLeaf(row: RequestStepRow, opened, kept) {
      if (opened?.state === 'open') return openedStepLeaf(row, opened.personal, opened.salt);
      if (!opened || opened.state === 'unreadable') return null;
      // The customer was erased: checked by the subject and evidence commitments the erasure kept.
      return stepLeaf(row, opened.commitment, kept ?? '');
    },
  },
  receipt: {
    route: {
      path: '/api/v1/request-steps/:step_id/receipt',
      param: 'step_id',
      operationId: 'getRequestStepReceipt',
      summary: "A data-subject request step's receipt",
      description:
        "The same proof as a decision's receipt, for a step of a data-subject request: the " +
        'leaf (`consent-log/request/v1`), its inclusion in a signed checkpoint, and what opens ' +
        "its commitments. A refusal's or an extension's reason is stated in words and as the " +
        'SHA-256 the leaf commits to.',
      schema: StepReceipt,
      notFound: 'Request step not found.',
      queued: 'the step',
    },
    find: async (db: Executor, tenantId: string, id: string) =>
      (await stepsByIds(db, tenantId, [id]))[0],
    present: (row: RequestStepRow, proof: LogProof, personal: OpenedPersonal) => ({
      request_step: {
        step_id: row.id,
        request_id: row.request_id,
        kind: row.kind,
        step: row.step,
        made_at: row.made_at,
        due_on: row.due_on,
        ground: row.ground,
        reason: row.reason,
        reason_sha256: row.reason === null ? null : reasonHash(row.reason),
        customer_id: personal?.personal.customer_id ?? null,
      },
      ...proof,
      opening: customerRecordOpening(row, personal),
    }),
  },
  evidence: { list: subjectSteps },
  events: {
    types: {
      'request.received': stepEvent('A data-subject request was received'),
      'request.identity_checked': stepEvent("A request's requester had their identity checked"),
      'request.in_progress': stepEvent('Work on a data-subject request began'),
      'request.extended': stepEvent("A request's time was extended, with a reason"),
      'request.done': stepEvent('A data-subject request was done'),
      'request.refused': stepEvent('A data-subject request was refused, with a ground and reason'),
    },
    recordField: 'step_id',
    subject: { field: 'customer_id', sealedUnder: 'subject' },
  },
} satisfies RecordKind;
