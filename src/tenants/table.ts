import type { Selectable } from 'kysely';

export interface TenantsTable {
  id: string;
  alias: string;
  email: string;
  /** scrypt, in the `scrypt$N$r$p$salt$hash` form of `passwords.ts`. */
  password_hash: string;
  created_at: string;
  disabled_at: string | null;
}

export type TenantRow = Selectable<TenantsTable>;
