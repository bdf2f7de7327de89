import type { Selectable } from 'kysely';

/** The service's super-administrator: registers and disables tenants. */
export interface OperatorsTable {
  id: string;
  email: string;
  /** scrypt, in the form of `src/tenants/passwords.ts`. */
  password_hash: string;
  created_at: string;
  updated_at: string;
}

/** A signed-in browser. Exactly one of `tenant_id` and `operator_id` is set. */
export interface BackofficeSessionsTable {
  /** Hex SHA-256 of the session cookie's value; the value itself is never stored. */
  id_hash: string;
  tenant_id: string | null;
  operator_id: string | null;
  /** Who signed in, as typed (lower case). */
  email: string;
  ip: string;
  user_agent: string | null;
  created_at: string;
  last_seen_at: string;
  /** The session ends then at the latest, however active. */
  expires_at: string;
  revoked_at: string | null;
}

/**
 * What one page leaves for the next page of the same session to show once (a new key, a draft
 * kept through signing in again, a confirmation): sealed under a key derived from the session
 * cookie, which the store does not hold; taken (deleted) when read, and useless after `expires_at`.
 */
export interface BackofficeFlashesTable {
  /** Hex SHA-256 of the session cookie's value, as in `backoffice_sessions`. */
  session_id_hash: string;
  name: string;
  sealed: string;
  expires_at: string;
}

/** Failed sign-ins in the current window, per account and per client address. */
export interface SignInThrottleTable {
  key: string;
  failures: number;
  window_started_at: string;
  /** No sign-in is tried for this key before then. */
  blocked_until: string | null;
  updated_at: string;
}

export type OperatorRow = Selectable<OperatorsTable>;
