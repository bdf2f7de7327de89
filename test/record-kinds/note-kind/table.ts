/**
 * A note: a test-only kind of record, a customer's acknowledgement of a topic (read the terms,
 * saw the fee schedule), declared in this folder alone to prove that a kind needs nothing else
 * but one line in a registry (`../registry.ts`).
 */
export interface NotesTable {
  tenant_id: string;
  id: string;
  subject_id: string;
  topic: string;
  /** The API key that sent it. */
  api_key_id: string;
  /** Customer id, address and user agent, sealed under the subject's key. */
  personal: string;
  evidence_salt: string;
  noted_at: string;
}

/** The latest note of each customer on each topic. */
export interface NoteStatesTable {
  tenant_id: string;
  subject_id: string;
  topic: string;
  note_id: string;
  since: string;
}

declare module '../../../src/platform/database.js' {
  interface Database {
    notes: NotesTable;
    note_states: NoteStatesTable;
  }
}
