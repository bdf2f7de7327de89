import type { Selectable } from 'kysely';

/**
 * Every action of a person on the service (in the back-office, on the command line, an erasure),
 * appended, never changed.
 */
export interface AuditLogTable {
  id: string;
  /** The tenant the action concerns; null for the operator's acts on the service itself. */
  tenant_id: string | null;
  actor_kind: 'operator' | 'tenant' | 'anonymous' | 'customer';
  /** The e-mail of who acted (as typed, for a failed sign-in). */
  actor: string;
  /** The name of who acted, as it was then; null for entries older than names. */
  actor_name: string | null;
  action: string;
  /** What the action was on (a template code, a key name, a customer's subject id, …). */
  target: string | null;
  /** JSON object with the particulars, or null. */
  details: string | null;
  ip: string;
  user_agent: string | null;
  created_at: string;
}

export type AuditRow = Selectable<AuditLogTable>;

declare module '../platform/database.js' {
  /** The tables this folder owns, in the store's one schema (src/platform/database.ts). */
  interface Database {
    audit_log: AuditLogTable;
  }
}

/**
 * Other folders' tables this folder's queries read (joined where one statement answers better
 * than a call to their service); `npm run lint` checks that no query reaches another
 * (scripts/table-owners.mjs).
 */
export type Reads = 'tenants';
