/**
 * Decisions as a kind of record (src/record-kinds): how the write path records them
 * (`writes.ts`), their leaf and how the log's audit rebuilds it, their receipt, their place in
 * a customer's evidence pack, their webhook events, and what erasing a customer drops of them
 * (their current states; the decisions stay, as the proof they were made).
 */
import { Type } from 'typebox';
import { decisionLeafFormat } from '../proof/index.js';
import {
  CustomerIdOrNull,
  EventVia,
  LogIndex,
  publishedOnLeaf,
  type RecordKind,
} from '../record-kinds/index.js';
import { deleteHeldActs } from './held-acts-repository.js';
import { lapsedEventType } from './lapse-events.js';
import { committedLeaf, leafOfDecision } from './leaf.js';
import { decisionReceipt, Receipt } from './receipt.js';
import {
  countSubjectDecisions,
  deleteSubjectStates,
  findDecisionsByIds,
  findDecisionWithTemplate,
  findSubjectDecisionsWithTemplate,
} from './record-repository.js';
import { RecordedDecision } from './schemas.js';
import type { DecisionRecordRow, DecisionRow } from './table.js';
import { decisionWrites } from './writes.js';

const DecisionData = Type.Object(
  {
    ...RecordedDecision.properties,
    customer_id: CustomerIdOrNull,
    via: EventVia,
    log_index: LogIndex,
  },
  { description: 'The decision as the API answered it, and its place in the decision log.' },
);

const LapsedData = Type.Object(
  {
    decision_id: Type.String({ format: 'uuid', description: 'The `given` that lapsed.' }),
    customer_id: CustomerIdOrNull,
    template_code: Type.String(),
    consent_version_id: Type.String({ format: 'uuid' }),
    version: Type.Integer({ minimum: 1 }),
    decided_at: Type.String({ format: 'date-time' }),
    expires_at: Type.String({
      format: 'date-time',
      description: 'When it lapsed: its time plus the validity period in calendar months (UTC).',
    }),
  },
  {
    description:
      "A customer's `given` that lapsed under its template's validity period, while still " +
      'their latest decision on the template.',
  },
);

export const decisions = {
  name: 'decision',
  writes: decisionWrites,
  records: {
    table: 'decisions',
    timeColumn: 'decided_at',
    format: decisionLeafFormat,
    noun: 'decision',
    sealed: true,
    byIds: findDecisionsByIds,
    expectedLeaf(row: DecisionRecordRow, opened, kept) {
      if (opened?.state === 'open') {
        const { personal, salt } = opened;
        return leafOfDecision(
          { ...row, ...personal, evidence_salt: row.evidence_salt ?? '' },
          salt,
        );
      }
      if (!opened || opened.state === 'unreadable') return null;
      // The customer was erased: their values are gone with their key, and the leaf is rebuilt
      // from the subject commitment and the evidence commitment that the erasure kept.
      return committedLeaf(row, opened.commitment, kept ?? '');
    },
  },
  receipt: {
    route: {
      path: '/api/v1/decisions/:decision_id/receipt',
      param: 'decision_id',
      operationId: 'getReceipt',
      summary: "A decision's receipt: its leaf, inclusion proof and signed checkpoint",
      description: '',
      schema: Receipt,
      notFound: 'Decision not found.',
      queued: 'the decision',
    },
    find: findDecisionWithTemplate,
    present: decisionReceipt,
    publishedOn: publishedOnLeaf(decisionLeafFormat),
  },
  evidence: {
    list: findSubjectDecisionsWithTemplate,
    versionId: (decision: DecisionRow) => decision.consent_version_id,
  },
  events: {
    types: {
      'decision.given': { summary: 'A decision `given` was recorded', data: DecisionData },
      'decision.reject': { summary: 'A decision `reject` was recorded', data: DecisionData },
      'decision.withdraw': { summary: 'A decision `withdraw` was recorded', data: DecisionData },
      [lapsedEventType]: {
        summary: "A customer's consent lapsed under its template's validity period",
        data: LapsedData,
      },
    },
    recordField: 'decision_id',
    subject: { field: 'customer_id', sealedUnder: 'subject' },
  },
  erasure: {
    counts: ['decisions'],
    async drop({ trx, tenantId, subjectId, lookup }) {
      await deleteSubjectStates(trx, tenantId, subjectId);
      // An act held for a co-consent names a representative: it goes with the customer.
      await deleteHeldActs(trx, tenantId, lookup);
      return { decisions: await countSubjectDecisions(trx, tenantId, subjectId) };
    },
  },
} satisfies RecordKind;
