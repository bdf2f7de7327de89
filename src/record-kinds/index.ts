/** The public surface of `src/record-kinds/`: what other folders may import (its README says what each part is). */
export {
  type ControlJob,
  type ControlOutcome,
  type ControlSpec,
  type ControlState,
  controlKind,
} from './control-kind.js';
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
  Keyed,
  KindBatch,
  KindErasure,
  KindEvents,
  KindEvidence,
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
export { ControlOpening, type LogProof, logProof, Via } from './receipt-schemas.js';
export { recordKindBatch } from './recorder.js';
export { defineRegistry, type Registry } from './registry.js';
export type { IdempotencyKeysTable } from './table.js';
