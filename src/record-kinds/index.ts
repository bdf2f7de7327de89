/** The public surface of `src/record-kinds/`: what other folders may import (its README says what the folder is for). */

export {
  type ControlContext,
  type ControlJob,
  type ControlOutcome,
  type ControlSpec,
  type ControlState,
  controlKind,
} from './control-kind.js';
export type { ControlChangeColumns, ControlStateColumns } from './control-repository.js';
export {
  CustomerIdOrNull,
  EventActor,
  EventDateTime,
  EventVia,
  LogIndex,
} from './event-schemas.js';
export {
  findIdempotencyRecords,
  forgetSubjectKeys,
  idempotencyKeyPattern,
  idempotencyLockName,
  keepIdempotencyRecords,
  purgeExpiredIdempotencyRecords,
  replayOf,
} from './idempotency.js';
export type {
  Decided,
  ErasureScope,
  EventPayload,
  EventSubject,
  HistoryEntry,
  HistoryPageQuery,
  HistoryRow,
  Keyed,
  KindBatch,
  KindErasure,
  KindEvents,
  KindEvidence,
  KindHistory,
  KindReceipt,
  KindRecords,
  KindWriter,
  KindWrites,
  NewSubject,
  OpenedPersonal,
  ReceiptRoute,
  RecordEffect,
  RecordKind,
  Replayed,
  Standing,
  StoredAnswer,
  StoredKey,
  StoredSubject,
  SubjectBook,
} from './kind.js';
export { leafEvidence, publishedOnLeaf } from './kind.js';
export {
  ControlOpening,
  customerOpeningFields,
  customerRecordOpening,
  type LogProof,
  logProof,
  Via,
} from './receipt-schemas.js';
export { lockSubject, recordKindBatch } from './recorder.js';
export { defineRegistry, type Registry } from './registry.js';
export type { IdempotencyKeysTable } from './table.js';
