/**
 * The note kind's declaration: everything a kind of record is (its writes and rule, leaf,
 * receipt, evidence-pack part, webhook event, erasure, migration), written against the
 * service's public surfaces only, as a new feature's folder would be.
 */
import { Type } from 'typebox';
import { anySubscriber } from '../../../src/journal/index.js';
import type { Executor, Trx } from '../../../src/platform/db.js';
import { newId } from '../../../src/platform/ids.js';
import { nowIso } from '../../../src/platform/time.js';
import {
  customerOpening,
  evidenceCommitment,
  lineLeafFormat,
  newSalt,
  subjectCommitment,
} from '../../../src/proof/index.js';
import {
  CustomerIdOrNull,
  EventDateTime,
  LogIndex,
  logProof,
  type OpenedPersonal,
  type RecordKind,
  type Standing,
  type SubjectBook,
} from '../../../src/record-kinds/index.js';
import { findLiveSubjectRow, type OpenSubject, sealPersonal } from '../../../src/subjects/index.js';
import { createNotes } from './migration.js';
import type { NotesTable } from './table.js';

/** A note as the writer takes it: plain data, so that it can cross to the writer thread. */
export interface NoteJob {
  tenantId: string;
  apiKeyId: string;
  ip: string;
  userAgent: string | null;
  customerId: string;
  lookup: string;
  topic: string;
}

/** `recorded`, or `unchanged` when the customer had already noted the topic. */
export type NoteOutcome = {
  kind: 'recorded' | 'unchanged';
  note: { note_id: string; topic: string; noted_at: string };
};

type NoteStanding = Standing & { note_id: string | null; since: string | null };

interface NoteLeaf {
  recordId: string;
  time: string;
  topic: string;
  subject: string;
  evidence: string;
}

export const noteLeafFormat = lineLeafFormat<NoteLeaf>({
  header: 'test-note/v1',
  kind: 'note',
  noun: 'note',
  section: 'note',
  folder: 'notes',
  lines: [
    { label: 'record', field: 'recordId' },
    { label: 'time', field: 'time' },
    { label: 'topic', field: 'topic', pattern: '[a-z][a-z0-9-]*' },
    { label: 'subject', field: 'subject' },
    { label: 'evidence', field: 'evidence' },
  ],
  record: (leaf) => ({ note_id: leaf.recordId, noted_at: leaf.time, topic: leaf.topic }),
  opening: customerOpening,
});

const NoteReceipt = Type.Object({
  note: Type.Object({
    note_id: Type.String({ format: 'uuid' }),
    topic: Type.String(),
    noted_at: Type.String({ format: 'date-time' }),
    customer_id: Type.Union([Type.String(), Type.Null()]),
  }),
  ...logProof('test-note/v1'),
  opening: Type.Union([
    Type.Object({
      customer_id: Type.String(),
      subject_salt: Type.String(),
      evidence_salt: Type.String(),
      ip: Type.String(),
      user_agent: Type.Union([Type.String(), Type.Null()]),
      api_key_id: Type.String(),
    }),
    Type.Null(),
  ]),
});

const NoteData = Type.Object({
  note_id: Type.String({ format: 'uuid' }),
  customer_id: CustomerIdOrNull,
  topic: Type.String(),
  noted_at: EventDateTime,
  log_index: LogIndex,
});

function leafOf(
  row: Pick<NotesTable, 'id' | 'noted_at' | 'topic' | 'evidence_salt' | 'api_key_id'>,
  subject: string,
  evidence: string,
) {
  return noteLeafFormat.text({
    recordId: row.id,
    time: row.noted_at,
    topic: row.topic,
    subject,
    evidence,
  });
}

function evidenceOf(
  row: Pick<NotesTable, 'evidence_salt' | 'api_key_id'>,
  ip: string,
  ua: string | null,
) {
  return evidenceCommitment(row.evidence_salt, { ip, userAgent: ua, apiKeyId: row.api_key_id });
}

async function standingOf(trx: Trx, job: NoteJob): Promise<NoteStanding> {
  const subject = await findLiveSubjectRow(trx, job.tenantId, job.lookup);
  const state = subject
    ? await trx
        .selectFrom('note_states')
        .select(['note_id', 'since'])
        .where('tenant_id', '=', job.tenantId)
        .where('subject_id', '=', subject.id)
        .where('topic', '=', job.topic)
        .executeTakeFirst()
    : undefined;
  return {
    subject_id: subject?.id ?? null,
    wrapped_key: subject?.wrapped_key ?? null,
    salt: subject?.salt ?? null,
    note_id: state?.note_id ?? null,
    since: state?.since ?? null,
    event_wanted: await anySubscriber(trx, job.tenantId, 'note.recorded', 'any'),
  };
}

function noteBatch() {
  const rows: NotesTable[] = [];
  const noted = new Map<string, { note_id: string; since: string }>();
  return {
    decide(job: NoteJob, stored: NoteStanding, subjects: SubjectBook) {
      const known = subjects.find(job.tenantId, job.lookup, stored);
      const key = `${job.tenantId}\u0000${job.lookup}\u0000${job.topic}`;
      const earlier =
        noted.get(key) ??
        (known && stored.note_id && stored.since
          ? { note_id: stored.note_id, since: stored.since }
          : undefined);
      if (earlier) {
        const note = { note_id: earlier.note_id, topic: job.topic, noted_at: earlier.since };
        return { outcome: { kind: 'unchanged' as const, note } };
      }
      const now = nowIso();
      const fresh = known
        ? undefined
        : subjects.create(job.tenantId, job.customerId, job.lookup, now);
      const subject = (known ?? fresh?.subject) as OpenSubject;
      const id = newId();
      const personal = { customer_id: job.customerId, ip: job.ip, user_agent: job.userAgent };
      const row: NotesTable = {
        tenant_id: job.tenantId,
        id,
        subject_id: subject.id,
        topic: job.topic,
        api_key_id: job.apiKeyId,
        personal: sealPersonal(subject.key, id, personal),
        evidence_salt: newSalt(),
        noted_at: now,
      };
      const note = { note_id: id, topic: job.topic, noted_at: now };
      return {
        outcome: { kind: 'recorded' as const, note },
        record: {
          tenantId: job.tenantId,
          lookup: job.lookup,
          id,
          at: now,
          subject,
          ...(fresh ? { created: fresh.row } : {}),
          leaf: leafOf(
            row,
            subjectCommitment(subject.salt, job.customerId),
            evidenceOf(row, job.ip, job.userAgent),
          ),
          event: (owner: OpenSubject) => {
            const eventId = newId();
            const sealed = sealPersonal(owner.key, eventId, {
              customer_id: job.customerId,
              ip: '',
              user_agent: null,
            });
            return {
              tenant_id: job.tenantId,
              id: eventId,
              type: 'note.recorded',
              record_id: id,
              subject_id: owner.id,
              data: JSON.stringify({ ...note, customer_sealed: sealed }),
              occurred_at: now,
            };
          },
        },
        commit: () => {
          rows.push(row);
          noted.set(key, { note_id: id, since: now });
        },
      };
    },
    async write(trx: Trx) {
      for (const row of rows) {
        await trx.insertInto('notes').values(row).execute();
        await trx
          .insertInto('note_states')
          .values({
            tenant_id: row.tenant_id,
            subject_id: row.subject_id,
            topic: row.topic,
            note_id: row.id,
            since: row.noted_at,
          })
          .onConflict((oc) =>
            oc
              .columns(['tenant_id', 'subject_id', 'topic'])
              .doUpdateSet({ note_id: row.id, since: row.noted_at }),
          )
          .execute();
      }
    },
  };
}

const notesOf = (db: Executor, tenantId: string) =>
  db.selectFrom('notes').selectAll().where('tenant_id', '=', tenantId);

export const notes = {
  name: 'note',
  migrations: { '9000-test-notes': createNotes },
  writes: {
    subjectOf: (job: NoteJob) => ({ tenantId: job.tenantId, lookup: job.lookup }),
    standings: async (trx: Trx, jobs: readonly NoteJob[]) => {
      const found: NoteStanding[] = [];
      for (const job of jobs) found.push(await standingOf(trx, job));
      return found;
    },
    batch: noteBatch,
  },
  records: {
    table: 'notes',
    format: noteLeafFormat,
    noun: 'note',
    sealed: true,
    byIds: (db: Executor, tenantId: string, ids: readonly string[]) =>
      notesOf(db, tenantId).where('id', 'in', ids).execute(),
    expectedLeaf(row: NotesTable, opened, kept) {
      if (opened?.state === 'open') {
        const { personal, salt } = opened;
        return leafOf(
          row,
          subjectCommitment(salt, personal.customer_id),
          evidenceOf(row, personal.ip, personal.user_agent),
        );
      }
      if (!opened || opened.state === 'unreadable') return null;
      return leafOf(row, opened.commitment, kept ?? '');
    },
  },
  receipt: {
    route: {
      path: '/api/v1/notes/:note_id/receipt',
      param: 'note_id',
      operationId: 'getNoteReceipt',
      summary: "A note's receipt",
      description: "The same proof as a decision's receipt, for a leaf in the note format.",
      schema: NoteReceipt,
      notFound: 'Note not found.',
      queued: 'the note',
    },
    find: (db: Executor, tenantId: string, id: string) =>
      notesOf(db, tenantId).where('id', '=', id).executeTakeFirst(),
    present: (row: NotesTable, proof, personal: OpenedPersonal) => ({
      note: {
        note_id: row.id,
        topic: row.topic,
        noted_at: row.noted_at,
        customer_id: personal?.personal.customer_id ?? null,
      },
      ...proof,
      opening: personal
        ? {
            customer_id: personal.personal.customer_id,
            subject_salt: personal.salt,
            evidence_salt: row.evidence_salt,
            ip: personal.personal.ip,
            user_agent: personal.personal.user_agent,
            api_key_id: row.api_key_id,
          }
        : null,
    }),
  },
  evidence: {
    list: (db: Executor, tenantId: string, subjectId: string) =>
      notesOf(db, tenantId).where('subject_id', '=', subjectId).orderBy('noted_at').execute(),
  },
  events: {
    types: { 'note.recorded': { summary: 'A customer noted a topic', data: NoteData } },
    recordField: 'note_id',
    subject: { field: 'customer_id', sealedUnder: 'subject' },
  },
  erasure: {
    counts: ['notes'],
    async drop({ trx, tenantId, subjectId }) {
      await trx
        .deleteFrom('note_states')
        .where('tenant_id', '=', tenantId)
        .where('subject_id', '=', subjectId)
        .execute();
      const { count } = await trx
        .selectFrom('notes')
        .select((eb) => eb.fn.countAll<number | string>().as('count'))
        .where('tenant_id', '=', tenantId)
        .where('subject_id', '=', subjectId)
        .executeTakeFirstOrThrow();
      return { notes: Number(count) };
    },
  },
} satisfies RecordKind;
