import type { Selectable } from 'kysely';

/** A data-subject request as it stands now (migration 0036); its steps are its records. */
export interface SubjectRequestsTable {
  tenant_id: string;
  id: string;
  subject_id: string;
  kind: string;
  status: string;
  /** How it came in: `api`, `preference-centre` or `backoffice`. */
  via: string;
  received_at: string;
  /** The due date in the tenant's time zone (YYYY-MM-DD). */
  due_on: string;
  /** 1 once the time was extended (once at most). */
  extended: number;
  /** The back-office user it is assigned to. */
  assignee_id: string | null;
  /** A refusal's PDPA ground. */
  ground: string | null;
  /** A refusal's or an extension's reason, as staff wrote it (it goes in the section 39 record). */
  reason: string | null;
  /** The customer id, address and user agent of who opened it, sealed under the subject's key. */
  personal: string;
  /** What the customer wrote with it, sealed under the subject's key. */
  details: string | null;
  updated_at: string;
  /** When it was done or refused. */
  closed_at: string | null;
}

/** Append-only: each step of a request, a record in the tenant's log. */
export interface RequestStepsTable {
  tenant_id: string;
  id: string;
  request_id: string;
  subject_id: string;
  kind: string;
  step: string;
  due_on: string;
  ground: string | null;
  reason: string | null;
  /** Who made the step: an API key, or a back-office user. */
  api_key_id: string | null;
  user_id: string | null;
  /** The customer id, and the address and user agent the step came from, sealed. */
  personal: string;
  evidence_salt: string;
  made_at: string;
}

/** A staff member's note on a request, sealed under the customer's key. */
export interface RequestNotesTable {
  tenant_id: string;
  id: string;
  request_id: string;
  user_id: string;
  body: string;
  written_at: string;
}

/** A single-use link an access or portability request is answered through (migration 0037). */
export interface RequestDeliveriesTable {
  tenant_id: string;
  id: string;
  request_id: string;
  /** Hex SHA-256 of the link's token: the token itself is shown once and kept nowhere. */
  token_hash: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** A reminder sent of a request's due date (migration 0039): each once. */
export interface RequestRemindersTable {
  tenant_id: string;
  request_id: string;
  /** `due-in-7-days`, `due-tomorrow` or `overdue`. */
  reminder: string;
  sent_at: string;
}

export type SubjectRequestRow = Selectable<SubjectRequestsTable>;
export type RequestStepRow = Selectable<RequestStepsTable>;
export type RequestNoteRow = Selectable<RequestNotesTable>;

declare module '../platform/database.js' {
  /** The tables this folder owns, in the store's one schema (src/platform/database.ts). */
  interface Database {
    subject_requests: SubjectRequestsTable;
    request_steps: RequestStepsTable;
    request_notes: RequestNotesTable;
    request_deliveries: RequestDeliveriesTable;
    request_reminders: RequestRemindersTable;
  }
}
