import type { Selectable } from 'kysely';

import type { DecisionValue } from './schemas.js';

export type { DecisionValue };

/**
 * The append-only record: rows are inserted, never updated or deleted. Its column
 * `content_sha256`, nullable since migration 0059, is left out: nothing writes or reads it (the
 * text's hash is the version's, `DecisionRecordRow`), and a later release drops it.
 */
export interface DecisionsTable {
  tenant_id: string;
  id: string;
  /** The customer's random id (src/subjects): the customer id itself is only in `personal`. */
  subject_id: string;
  template_id: string;
  consent_version_id: string;
  version: number;
  decision: DecisionValue;
  /** Position in the customer's history of this template: 1, 2, 3, … ("most recent" = highest). */
  seq: number;
  decided_at: string;
  api_key_id: string;
  /** Customer id, IP address and user agent, sealed under the customer's key (personal.ts). */
  personal: string;
  idempotency_key: string | null;
  /** base64 random bytes behind the evidence commitment of the decision's log leaf. */
  evidence_salt: string | null;
}

/**
 * The customer's latest decision on a template, kept by the transaction that records it. Its
 * tenant's id, a column on SQLite and on PostgreSQL before migration 0071, is left out: a
 * statement names it only through `stateOfTenantRow` (src/platform/id-type.ts).
 */
export interface CustomerTemplateStatesTable {
  subject_id: string;
  template_id: string;
  decision_count: number;
  last_decision_id: string;
  last_decision: DecisionValue;
  last_consent_version_id: string;
  last_decided_at: string;
}

/**
 * How far the telling of a template's lapsed consents (`consent.lapsed`, migration 0029) has
 * gone: every `given` up to `(decided_through, through_id)` was looked at.
 */
export interface LapseProgressTable {
  tenant_id: string;
  template_id: string;
  decided_through: string;
  through_id: string;
}

/**
 * The customer's latest decision on one version: what `pending` and re-consent read. Its
 * tenant's id is left out, as `CustomerTemplateStatesTable`'s is.
 */
export interface CustomerVersionStatesTable {
  subject_id: string;
  consent_version_id: string;
  last_decision_id: string;
  last_decision: DecisionValue;
  last_decided_at: string;
}

/**
 * The first act of a co-consent, held until the second comes (migration 0035,
 * held-acts.ts): by the customer's keyed look-up, the version and the side that acted.
 */
export interface HeldConsentActsTable {
  tenant_id: string;
  lookup: string;
  consent_version_id: string;
  side: 'subject' | 'representative';
  /** The act (role, reference, basis) sealed under the data key, bound to the row's keys. */
  act: string;
  held_at: string;
  expires_at: string;
}

export type DecisionRow = Selectable<DecisionsTable>;

/**
 * A decision as its record reads it: with the SHA-256 of the text shown, its version's (a
 * published version's text never changes; since migration 0059 the row keeps no copy).
 */
export type DecisionRecordRow = DecisionRow & { content_sha256: string };

declare module '../platform/database.js' {
  /** The tables this folder owns, in the store's one schema (src/platform/database.ts). */
  interface Database {
    decisions: DecisionsTable;
    customer_template_states: CustomerTemplateStatesTable;
    customer_version_states: CustomerVersionStatesTable;
    lapse_progress: LapseProgressTable;
    held_consent_acts: HeldConsentActsTable;
  }
}

/**
 * Other folders' tables this folder's queries read (joined where one statement answers better
 * than a call to their service); `npm run lint` checks that no query reaches another
 * (scripts/table-owners.mjs).
 */
export type Reads =
  | 'idempotency_keys'
  | 'subjects'
  | 'template_validity_changes'
  | 'template_versions'
  | 'templates';
