/**
 * A website visitor's cookie choice as a kind of record (src/record-kinds): how the write path
 * records it (`writes.ts`), its leaf (`consent-log/cookie/v1`) and how the log's audit rebuilds
 * it, its receipt and its webhook event. A visitor holds no evidence pack and is erased by their
 * own id (`visitor.ts`), not as a customer; a choice made while signed in is in the customer's
 * evidence pack too.
 */
import { type Static, Type } from 'typebox';
import { cookieLeafFormat } from '../proof/index.js';
import {
  EventDateTime,
  LogIndex,
  type LogProof,
  logProof,
  type OpenedPersonal,
  publishedOnLeaf,
  type RecordKind,
} from '../record-kinds/index.js';
import {
  findCookieDecisionRow,
  findCookieDecisionsByIds,
  findCustomerCookieDecisions,
  type ReceiptCookieDecisionRow,
} from './decisions-repository.js';
import { committedCookieLeaf, leafOfCookieDecision } from './leaf.js';
import { cookieDecisionFields } from './schemas.js';
import type { CookieDecisionRecordRow } from './table.js';
import { choiceWrites } from './writes.js';

/** A website visitor's cookie decision, as its receipt states it (what its leaf commits to). */
const ReceiptCookieDecision = Type.Object(
  {
    decision_id: Type.String({ format: 'uuid' }),
    system_id: Type.String({ format: 'uuid' }),
    configuration_id: Type.String({ format: 'uuid' }),
    configuration_version: Type.Integer({ minimum: 1 }),
    content_sha256: Type.String({
      pattern: '^[0-9a-f]{64}$',
      description: "Hex SHA-256 of the configuration's content the visitor was shown",
    }),
    method: Type.Enum(['accept-all', 'reject-all', 'custom', 'gpc']),
    categories: Type.Record(Type.String(), Type.Boolean(), {
      description: 'Every category of the configuration: granted (true) or denied',
    }),
    decided_at: Type.String({ format: 'date-time' }),
    visitor_id: Type.Union([Type.String(), Type.Null()], {
      description: "The visitor id of the site's consent cookie; null once the visitor was erased",
    }),
  },
  { description: "The visitor's choice" },
);

export const CookieReceipt = Type.Object({
  cookie_decision: ReceiptCookieDecision,
  ...logProof('consent-log/cookie/v1'),
  opening: Type.Union(
    [
      Type.Object({
        visitor_id: Type.String(),
        subject_salt: Type.String(),
        evidence_salt: Type.String(),
        ip: Type.String({ description: 'The address as the tenant keeps it' }),
        user_agent: Type.Union([Type.String(), Type.Null()]),
        origin: Type.String({ description: "The page's origin" }),
        locale: Type.String(),
        region: Type.Optional(
          Type.String({ description: 'Where the visitor was, when the service knew' }),
        ),
        variant: Type.Optional(
          Type.String({ description: 'The A/B variant the visitor saw, when there were variants' }),
        ),
        customer: Type.Optional(
          Type.Object(
            {
              commitment: Type.String({
                description:
                  "The customer's subject commitment, as their own records' leaves carry it",
              }),
              subject_salt: Type.Optional(
                Type.String({
                  description:
                    "The customer's subject salt: with their id it opens `commitment`; absent once the customer was erased",
                }),
              ),
            },
            { description: 'The customer the visitor was signed in as, when they were' },
          ),
        ),
      }),
      Type.Null(),
    ],
    {
      description:
        "What opens the leaf's visitor and evidence commitments; null once the visitor was erased",
    },
  ),
});
export type CookieReceipt = Static<typeof CookieReceipt>;

const CookieDecisionData = Type.Object(
  {
    ...cookieDecisionFields,
    decided_at: EventDateTime,
    log_index: LogIndex,
  },
  { description: "A website visitor's cookie choice, and its place in the decision log." },
);

/**
 * A cookie decision's receipt, as a decision's: the same proof, the choice its leaf commits to,
 * and what opens the visitor and evidence commitments (the visitor is a subject of their own,
 * their id sealed in the record as a customer's is).
 */
export function cookieReceipt(
  decision: ReceiptCookieDecisionRow,
  proof: LogProof,
  personal: OpenedPersonal,
): CookieReceipt {
  return {
    cookie_decision: {
      decision_id: decision.id,
      system_id: decision.system_id,
      configuration_id: decision.configuration_id,
      configuration_version: Number(decision.configuration_version),
      content_sha256: decision.content_sha256,
      method: decision.method,
      categories: JSON.parse(decision.categories) as Record<string, boolean>,
      decided_at: decision.decided_at,
      visitor_id: personal?.personal.customer_id ?? null,
    },
    ...proof,
    opening: personal
      ? {
          visitor_id: personal.personal.customer_id,
          subject_salt: personal.salt,
          evidence_salt: decision.evidence_salt,
          ip: personal.personal.ip,
          user_agent: personal.personal.user_agent,
          origin: decision.origin,
          locale: decision.locale,
          ...(decision.region ? { region: decision.region } : {}),
          ...(decision.variant ? { variant: decision.variant } : {}),
          ...(decision.customer
            ? {
                customer: {
                  commitment: decision.customer,
                  ...(decision.customer_salt ? { subject_salt: decision.customer_salt } : {}),
                },
              }
            : {}),
        }
      : null,
  };
}

export const cookieChoices = {
  name: 'cookie',
  writes: choiceWrites,
  records: {
    table: 'cookie_decisions',
    timeColumn: 'decided_at',
    format: cookieLeafFormat,
    noun: 'cookie decision',
    sealed: true,
    byIds: findCookieDecisionsByIds,
    expectedLeaf(row: CookieDecisionRecordRow, opened, kept) {
      if (!opened || opened.state === 'unreadable') return null;
      const categories = categoriesOf(row.categories);
      // Categories that are no longer a JSON object of booleans were changed: no leaf matches.
      if (!categories) return '';
      if (opened.state === 'open') {
        const { personal, salt } = opened;
        return leafOfCookieDecision(
          {
            ...row,
            categories,
            visitor_id: personal.customer_id,
            ip: personal.ip,
            user_agent: personal.user_agent,
          },
          salt,
        );
      }
      // The visitor was erased: checked as an erased customer's decision is, by the subject and
      // evidence commitments that the erasure kept.
      return committedCookieLeaf({ ...row, categories }, opened.commitment, kept ?? '');
    },
  },
  receipt: {
    route: {
      path: '/api/v1/cookie-decisions/:decision_id/receipt',
      param: 'decision_id',
      operationId: 'getCookieDecisionReceipt',
      summary:
        "A website visitor's cookie decision's receipt: its leaf, inclusion proof and signed checkpoint",
      description:
        "The same proof as a decision's receipt, for a leaf in the cookie format (consent-log/cookie/v1).",
      schema: CookieReceipt,
      notFound: 'Cookie decision not found.',
      queued: 'the decision',
    },
    find: findCookieDecisionRow,
    present: cookieReceipt,
    publishedOn: publishedOnLeaf(cookieLeafFormat),
  },
  // A choice made while signed in is the customer's too: in their evidence pack, by its leaf's
  // format's folder (`records/cookie-decisions/`).
  evidence: { list: findCustomerCookieDecisions },
  events: {
    types: {
      'cookie_decision.recorded': {
        summary: "A website visitor's cookie choice was recorded",
        data: CookieDecisionData,
      },
    },
    recordField: 'decision_id',
    subject: { field: 'visitor_id', sealedUnder: 'subject' },
  },
} satisfies RecordKind;

function categoriesOf(json: string): Record<string, boolean> | undefined {
  try {
    const parsed: unknown = JSON.parse(json);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
    const values = Object.values(parsed);
    return values.every((v) => typeof v === 'boolean')
      ? (parsed as Record<string, boolean>)
      : undefined;
  } catch {
    return undefined;
  }
}
