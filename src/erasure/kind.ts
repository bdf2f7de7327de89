/**
 * An erasure's tombstones as a kind of record (src/record-kinds): one `erased` leaf per template
 * the customer had decided on, in the decisions' format, carrying the subject commitment of
 * their earlier leaves, so that whoever holds a receipt of theirs can see the record was erased;
 * and the `customer.erased` event, whose customer id is sealed under the service's own secrets.
 */
import { Type } from 'typebox';
import { decidedTemplates } from '../decisions/index.js';
import type { Executor } from '../platform/db.js';
import { newId } from '../platform/ids.js';
import { decisionLeafFormat } from '../proof/index.js';
import { EventDateTime, LogIndex, type RecordKind } from '../record-kinds/index.js';
import { leafOfErasure } from './leaf.js';
import { findTombstones, insertErasure } from './repository.js';

const ErasureData = Type.Object(
  {
    customer_id: Type.Union([Type.String(), Type.Null()], {
      description:
        'The erased customer id while an endpoint subscribed to this event has still to be ' +
        'sent it; otherwise null.',
    }),
    erased_at: EventDateTime,
    log_index: Type.Optional(LogIndex),
  },
  { description: 'An erasure; `log_index` is that of its first tombstone.' },
);

type Tombstone = Awaited<ReturnType<typeof findTombstones>>[number];

export const tombstones = {
  name: 'erasure',
  records: {
    table: 'erasures',
    format: decisionLeafFormat,
    noun: 'tombstone',
    sealed: false,
    byIds: (db: Executor, tenantId: string, ids: readonly string[]) =>
      findTombstones(db, tenantId, ids),
    expectedLeaf: (row: Tombstone) => leafOfErasure(row, row.commitment),
  },
  events: {
    types: { 'customer.erased': { summary: 'A customer was erased', data: ErasureData } },
    subject: { field: 'customer_id', sealedUnder: 'service' },
  },
  erasure: {
    counts: ['tombstones'],
    async record({ trx, tenantId, subjectId, commitment, erasedAt, log }) {
      const states = await decidedTemplates(trx, tenantId, subjectId);
      for (const state of states) {
        const erasure = {
          tenant_id: tenantId,
          id: newId(),
          subject_id: subjectId,
          template_id: state.template_id,
          version: Number(state.version),
          content_sha256: state.content_sha256,
          erased_at: erasedAt,
        };
        await insertErasure(trx, erasure);
        log([
          {
            log_id: tenantId,
            record_id: erasure.id,
            leaf: leafOfErasure(erasure, commitment),
            queued_at: erasedAt,
          },
        ]);
      }
      return { tombstones: states.length };
    },
  },
} satisfies RecordKind;
