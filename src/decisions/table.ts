import type { Selectable } from 'kysely';

export type DecisionValue = 'given' | 'reject' | 'withdraw';

/** The append-only record: rows are inserted, never updated or deleted. */
export interface DecisionsTable {
  tenant_id: string;
  id: string;
  customer_id: string;
  template_id: string;
  consent_version_id: string;
  version: number;
  decision: DecisionValue;
  /** Position in the customer's history of this template: 1, 2, 3, … ("most recent" = highest). */
  seq: number;
  decided_at: string;
  api_key_id: string;
  ip: string;
  user_agent: string | null;
  content_sha256: string;
  idempotency_key: string | null;
  /** base64 random bytes behind the evidence commitment of the decision's log leaf. */
  evidence_salt: string | null;
}

/** The customer's latest decision on a template, kept by the transaction that records it. */
export interface CustomerTemplateStatesTable {
  tenant_id: string;
  customer_id: string;
  template_id: string;
  decision_count: number;
  last_decision_id: string;
  last_decision: DecisionValue;
  last_consent_version_id: string;
  last_decided_at: string;
}

/** The customer's latest decision on one version: what `pending` and re-consent read. */
export interface CustomerVersionStatesTable {
  tenant_id: string;
  customer_id: string;
  consent_version_id: string;
  last_decision_id: string;
  last_decision: DecisionValue;
  last_decided_at: string;
}

export interface IdempotencyKeysTable {
  tenant_id: string;
  key: string;
  customer_id: string;
  /** Hex SHA-256 of the canonical JSON of the request body. */
  request_hash: string;
  status_code: number;
  response_body: string;
  created_at: string;
}

export type DecisionRow = Selectable<DecisionsTable>;
