/**
 * A control: something of a customer's that is blocked or allowed again, each change a record
 * with its leaf, receipt and event, the latest change of each target its current state (a
 * product's channel; a partner on one of their decisions). A control kind is a declaration of
 * what differs (`ControlSpec`: its tables, leaf format, the fields it shows, its event, audit
 * actions and receipt route); everything else is here, once.
 */
import type { TProperties } from 'typebox';
import type { Actor } from '../audit-trail/index.js';
import type { NewEvent } from '../journal/index.js';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/time.js';
import { evidenceCommitment, type LeafFormat, newSalt, subjectCommitment } from '../proof/index.js';
import { sealPersonal } from '../subjects/index.js';
import {
  type ControlChangeRow,
  type ControlStanding,
  type ControlStateRow,
  type ControlTables,
  controlStatements,
} from './control-repository.js';
import { controlEventData } from './event-schemas.js';
import type { KindWrites, OpenedPersonal, ReceiptRoute, RecordKind, Replayed } from './kind.js';
import { controlReceipt, customerRecordOpening, type LogProof } from './receipt-schemas.js';

/**
 * Who made a change: kept with it as evidence, as a decision's. Either an API key, or a
 * back-office user (`userId`, no key; audited as `auditedAs`, in the change's own transaction).
 */
export interface ControlContext {
  tenantId: string;
  apiKeyId: string | null;
  userId: string | null;
  auditedAs?: Actor;
  ip: string;
  userAgent: string | null;
  /** Set when the customer made the change on the preference centre: its evidence says so. */
  via?: 'preference-centre';
}

/** A change as the writer takes it: plain data, so that it can cross to the writer thread. */
export interface ControlJob extends ControlContext {
  customerId: string;
  /** The customer's keyed look-up (`vault.lookup`). */
  lookup: string;
  /** What is controlled: the values of the kind's target columns. */
  target: Readonly<Record<string, string>>;
  blocked: boolean;
  /** The request's `Idempotency-Key`, if any. */
  idempotencyKey?: string;
  /** Hex SHA-256 of the request (method, path and body), checked against the key's record. */
  requestHash: string;
  /** For a control on a record the customer has (their decision): that record's subject. */
  subjectId?: string;
}

/** A target's state as the API answers it: the kind's fields, then these. */
export type ControlState = Record<string, string | boolean | null> & {
  blocked: boolean;
  /** When the latest change was made; null when never changed. */
  since: string | null;
  /** The latest change's id (its receipt's); null when never changed. */
  record_id: string | null;
};

/**
 * `recorded`: a change was stored; `unchanged`: the target already had that state;
 * `replayed`: its `Idempotency-Key` answered, within its window, the first request's answer.
 */
export type ControlOutcome<State = ControlState> =
  | { kind: 'recorded' | 'unchanged'; state: State }
  | Replayed<{ data: State }>;

/** What a control kind declares. */
export interface ControlSpec {
  /** The kind's name (`channel`, `partner`). */
  name: string;
  tables: Omit<ControlTables, 'eventType'>;
  format: LeafFormat;
  /** The leaf's own fields (beside record, time, blocked and the commitments) by column. */
  leaf: Readonly<Record<string, string>>;
  /** The columns a receipt, an event and a customer's history show, in their order. */
  shown: readonly string[];
  /** The columns the API's state of a target shows, in their order. */
  stated: readonly string[];
  /** For a control on a record the customer has: the message of `404 1004` when it is not theirs. */
  onRecord?: { notFound: string };
  /** Its webhook event: the type, and the kind's fields of its `data` (for the document). */
  event: { type: string; summary: string; description: string; fields: TProperties };
  /** The audit entry of a back-office user's change. */
  audit: {
    blocked: string;
    allowed: string;
    entry(change: { id: string; target: Readonly<Record<string, string>> }): {
      target: string;
      details: Record<string, unknown>;
    };
  };
  /** Its receipt's route, and the kind's fields of the change it states (for the document). */
  receipt: Omit<ReceiptRoute, 'schema'> & { fields: TProperties };
}

/** What a change's leaf is made of, of its row. */
type LoggedChange = Pick<
  ControlChangeRow,
  'id' | 'changed_at' | 'blocked' | 'evidence_salt' | 'api_key_id' | 'user_id'
> &
  Readonly<Record<string, string | number | null>>;

const pick = (from: Readonly<Record<string, unknown>>, columns: readonly string[]) =>
  Object.fromEntries(columns.map((column) => [column, from[column]]));

/** What the change seals and its evidence commits to: `via` only when it is set. */
function personalOf(job: ControlJob) {
  return {
    customer_id: job.customerId,
    ip: job.ip,
    user_agent: job.userAgent,
    ...(job.via ? { via: job.via } : {}),
  };
}

/** A control kind, from its declaration. */
export function controlKind(spec: ControlSpec) {
  const statements = controlStatements({ ...spec.tables, eventType: spec.event.type });
  const { format, tables } = spec;

  /** The leaf of a change, from its row, the commitments given or computed. */
  function leafOf(row: LoggedChange, subject: string, evidence: string): string {
    return format.text({
      recordId: row.id,
      time: row.changed_at,
      ...Object.fromEntries(Object.entries(spec.leaf).map(([field, col]) => [field, row[col]])),
      blocked: Number(row.blocked) === 1,
      subject,
      evidence,
    });
  }

  /**
   * The leaf a change makes, from its row and its personal fields opened, and the customer's
   * subject salt: what the writer queues, and what the log's audit recomputes.
   */
  function openedLeaf(
    row: LoggedChange,
    personal: { customer_id: string; ip: string; user_agent: string | null; via?: string | null },
    salt: string,
  ): string {
    return leafOf(
      row,
      subjectCommitment(salt, personal.customer_id),
      evidenceCommitment(row.evidence_salt, {
        ip: personal.ip,
        userAgent: personal.user_agent,
        apiKeyId: row.api_key_id,
        userId: row.user_id,
        via: personal.via,
      }),
    );
  }

  const stateOf = (
    target: Readonly<Record<string, string>>,
    state: Pick<ControlStateRow, 'blocked' | 'change_id' | 'since'> | undefined,
  ): ControlState => ({
    ...(pick(target, spec.stated) as Record<string, string>),
    blocked: Number(state?.blocked) === 1,
    since: state?.since ?? null,
    record_id: state?.change_id ?? null,
  });

  const stateName = (job: ControlJob, subjectId: string) =>
    [
      job.tenantId,
      ...(tables.bySubject ? [subjectId] : []),
      ...tables.stateKey.map((c) => job.target[c]),
    ].join('\u0000');

  const writes: KindWrites<ControlJob, ControlOutcome, ControlStanding> = {
    subjectOf: (job) => ({ tenantId: job.tenantId, lookup: job.lookup }),
    idempotency: (job) =>
      job.idempotencyKey === undefined
        ? undefined
        : { key: job.idempotencyKey, requestHash: job.requestHash },
    answer: (outcome) =>
      outcome.kind === 'replayed'
        ? outcome.answer
        : { status: outcome.kind === 'recorded' ? 201 : 200, body: { data: outcome.state } },
    standings: (trx, jobs) =>
      statements.standings(
        trx,
        jobs.map((job) => ({
          tenant_id: job.tenantId,
          lookup: job.lookup,
          ...pick(job.target, tables.stateKey),
        })) as never,
      ),
    batch() {
      const rows: ControlChangeRow[] = [];
      /** By state key: the batch's latest state of each target. */
      const states = new Map<string, ControlStateRow>();
      return {
        decide(job, stored, subjects) {
          let subject = subjects.find(job.tenantId, job.lookup, stored);
          if (spec.onRecord && (!subject || subject.id !== job.subjectId)) {
            throw new AppError('notFound', { message: spec.onRecord.notFound });
          }
          const name = subject ? stateName(job, subject.id) : undefined;
          const current = name
            ? (states.get(name) ??
              (stored.change_id === null || stored.since === null || stored.blocked === null
                ? undefined
                : {
                    blocked: Number(stored.blocked),
                    change_id: stored.change_id,
                    since: stored.since,
                  }))
            : undefined;
          if ((current?.blocked === 1) === job.blocked) {
            return { outcome: { kind: 'unchanged', state: stateOf(job.target, current) } };
          }
          const now = nowIso();
          let created: ReturnType<typeof subjects.create>['row'] | undefined;
          if (!subject) {
            const fresh = subjects.create(job.tenantId, job.customerId, job.lookup, now);
            subject = fresh.subject;
            created = fresh.row;
          }
          const id = newId();
          const row: ControlChangeRow = {
            tenant_id: job.tenantId,
            id,
            subject_id: subject.id,
            ...job.target,
            blocked: job.blocked ? 1 : 0,
            api_key_id: job.apiKeyId,
            user_id: job.userId,
            idempotency_key: job.idempotencyKey ?? null,
            personal: sealPersonal(subject.key, id, personalOf(job)),
            evidence_salt: newSalt(),
            changed_at: now,
          };
          const state: ControlStateRow = {
            tenant_id: job.tenantId,
            subject_id: subject.id,
            ...(pick(job.target, tables.stateKey) as Record<string, string>),
            blocked: row.blocked,
            change_id: id,
            since: now,
          };
          const opened = subject;
          return {
            outcome: { kind: 'recorded', state: stateOf(job.target, state) },
            record: {
              tenantId: job.tenantId,
              lookup: job.lookup,
              id,
              at: now,
              subject: opened,
              ...(created ? { created } : {}),
              leaf: openedLeaf(row, personalOf(job), opened.salt),
              event: (owner) => controlEvent(job, owner, row),
              ...(job.auditedAs
                ? {
                    audit: {
                      ...job.auditedAs,
                      tenantId: job.tenantId,
                      action: job.blocked ? spec.audit.blocked : spec.audit.allowed,
                      ...spec.audit.entry({ id, target: job.target }),
                    },
                  }
                : {}),
            },
            commit() {
              rows.push(row);
              states.set(stateName(job, opened.id), state);
            },
          };
        },
        async write(trx) {
          await statements.insertChanges(trx, rows);
          await statements.saveStates(trx, [...states.values()]);
        },
      };
    },
  };

  /**
   * A change's webhook event. The customer id is sealed under the customer's own key (bound to
   * the event), as a decision's event keeps it: erasing the customer destroys the way from the
   * event to the id, and the event then says `customer_id: null`.
   */
  function controlEvent(
    job: ControlJob,
    subject: { id: string; key: Buffer },
    row: ControlChangeRow,
  ): NewEvent {
    const id = newId();
    const sealed = sealPersonal(subject.key, id, {
      customer_id: job.customerId,
      ip: '',
      user_agent: null,
    });
    const data = {
      change_id: row.id,
      ...pick(row, spec.shown),
      blocked: job.blocked,
      changed_at: row.changed_at,
      actor: { api_key_id: job.apiKeyId, user_id: job.userId },
      ...(job.via ? { via: job.via } : {}),
    };
    return {
      tenant_id: job.tenantId,
      id,
      type: spec.event.type,
      record_id: row.id,
      subject_id: subject.id,
      data: JSON.stringify({ ...data, customer_sealed: sealed }),
      occurred_at: row.changed_at,
    };
  }

  /** A change as a customer's history lists it. */
  const entryOf = (row: ControlChangeRow) => ({
    type: format.section,
    change_id: row.id,
    changed_at: row.changed_at,
    ...(pick(row, spec.shown) as Record<string, string>),
    blocked: Number(row.blocked) === 1,
  });

  const kind = {
    name: spec.name,
    writes,
    records: {
      table: tables.changes,
      timeColumn: 'changed_at',
      format,
      noun: format.noun,
      sealed: true,
      byIds: statements.changesByIds,
      expectedLeaf(row: ControlChangeRow, opened, kept) {
        if (opened?.state === 'open') return openedLeaf(row, opened.personal, opened.salt);
        if (!opened || opened.state === 'unreadable') return null;
        // The customer was erased: checked as their decisions are, by the subject and evidence
        // commitments the erasure kept.
        return leafOf(row, opened.commitment, kept ?? '');
      },
    },
    receipt: {
      route: { ...spec.receipt, schema: controlReceipt(format, spec.receipt.fields) },
      find: async (db, tenantId, id) => (await statements.changesByIds(db, tenantId, [id]))[0],
      present: (change: ControlChangeRow, proof: LogProof, personal: OpenedPersonal) => ({
        [format.section]: {
          change_id: change.id,
          ...pick(change, spec.shown),
          blocked: Number(change.blocked) === 1,
          changed_at: change.changed_at,
          customer_id: personal?.personal.customer_id ?? null,
        },
        ...proof,
        opening: customerRecordOpening(change, personal),
      }),
    },
    evidence: { list: statements.subjectChanges },
    events: {
      types: {
        [spec.event.type]: {
          summary: spec.event.summary,
          data: controlEventData(spec.event.fields, spec.event.description),
        },
      },
      recordField: 'change_id',
      subject: { field: 'customer_id', sealedUnder: 'subject' },
    },
    erasure: {
      drop: async ({ trx, tenantId, subjectId }) => {
        await statements.deleteSubjectStates(trx, tenantId, subjectId);
        return undefined;
      },
    },
    history: {
      // A customer's changes (their subject's) as their history lists them, newest first.
      async entries(db, tenantId, subjectId) {
        const rows = await statements.subjectChanges(db, tenantId, subjectId);
        return rows.reverse().map(entryOf);
      },
      async page(db, tenantId, query) {
        return (await statements.changesPage(db, tenantId, query)).map((row) => ({
          id: row.id,
          subject_id: row.subject_id,
          personal: row.personal,
          changed_at: row.changed_at,
          entry: {
            ...entryOf(row),
            api_key_id: row.api_key_id,
            user_id: row.user_id,
            idempotency_key: row.idempotency_key,
          },
        }));
      },
    },
  } satisfies RecordKind;

  return { kind, stateOf, leaf: openedLeaf };
}
