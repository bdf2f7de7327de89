import { subjectChannelChanges } from '../channels/index.js';
import {
  channelReceipt,
  decisionReceipt,
  type LogProof,
  type OpenedPersonal,
  partnerBlockReceipt,
} from '../decision-log/index.js';
import { subjectPartnerBlockChanges } from '../partner-blocks/index.js';
import type { Executor } from '../platform/db.js';
import { subjectDecisions } from '../records/index.js';
import type { SealedRecord } from '../subjects/index.js';

/** One of a customer's records as the pack takes it: sealed, with what makes its receipt. */
export interface PackRecord extends SealedRecord {
  /** The version whose text the customer was shown, for a record made on one. */
  versionId: string | undefined;
  /** Its receipt, as the API answers it for this kind. */
  receipt(proof: LogProof, personal: OpenedPersonal): unknown;
}

/**
 * A kind of record a customer's evidence pack holds: its folder under `records/` and how to
 * list a customer's records of it. A new kind of logged record is one entry.
 */
export interface RecordKind {
  folder: string;
  list(db: Executor, tenantId: string, subjectId: string): Promise<PackRecord[]>;
}

export const recordKinds: readonly RecordKind[] = [
  {
    folder: 'decisions',
    list: async (db, tenantId, subjectId) =>
      (await subjectDecisions(db, tenantId, subjectId)).map((decision) => ({
        id: decision.id,
        subject_id: decision.subject_id,
        personal: decision.personal,
        versionId: decision.consent_version_id,
        receipt: (proof, personal) => decisionReceipt(decision, proof, personal),
      })),
  },
  {
    folder: 'channel-changes',
    list: async (db, tenantId, subjectId) =>
      (await subjectChannelChanges(db, tenantId, subjectId)).map((change) => ({
        id: change.id,
        subject_id: change.subject_id,
        personal: change.personal,
        versionId: undefined,
        receipt: (proof, personal) => channelReceipt(change, proof, personal),
      })),
  },
  {
    // A block is on one of the customer's decisions, whose text the pack already holds.
    folder: 'partner-blocks',
    list: async (db, tenantId, subjectId) =>
      (await subjectPartnerBlockChanges(db, tenantId, subjectId)).map((change) => ({
        id: change.id,
        subject_id: change.subject_id,
        personal: change.personal,
        versionId: undefined,
        receipt: (proof, personal) => partnerBlockReceipt(change, proof, personal),
      })),
  },
];
