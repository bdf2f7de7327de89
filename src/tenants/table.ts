import type { Generated, Selectable } from 'kysely';

export interface TenantsTable {
  id: string;
  alias: string;
  email: string;
  /**
   * No longer read: people sign in as users (`src/accounts/`). Emptied when a tenant's login
   * became its first user; kept, empty, because the store's history only moves forward.
   */
  password_hash: string;
  created_at: string;
  disabled_at: string | null;
  /** IANA name of the zone the back-office shows and filters dates in; times are stored UTC. */
  time_zone: Generated<string>;
  /** 1: whoever wrote or submitted a version can neither pass its review nor approve it. */
  four_eyes: Generated<number>;
  /** 1: whoever passed a version's review cannot approve it (migration 0018; 0 by default). */
  distinct_approver: Generated<number>;
  /** 1: every user must sign in with a second factor. */
  two_factor_required: Generated<number>;
  /** How a cookie choice keeps the visitor's address: `full`, `truncated` (default), `hashed`. */
  cookie_address: Generated<'full' | 'truncated' | 'hashed'>;
}

export type TenantRow = Selectable<TenantsTable>;

declare module '../platform/database.js' {
  /** The tables this folder owns, in the store's one schema (src/platform/database.ts). */
  interface Database {
    tenants: TenantsTable;
  }
}
