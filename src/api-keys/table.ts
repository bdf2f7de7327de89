import type { Selectable } from 'kysely';

export interface ApiKeysTable {
  tenant_id: string;
  id: string;
  name: string;
  /** The visible start of the key (`csk_` and 12 characters), unique: it finds the row. */
  prefix: string;
  /** Hex SHA-256 of the whole key; the key itself is never stored. */
  key_hash: string;
  /** The key's last four characters (set since migration 0012), shown beside the prefix. */
  last_four: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export type ApiKeyRow = Selectable<ApiKeysTable>;

declare module '../platform/database.js' {
  /** The tables this folder owns, in the store's one schema (src/platform/database.ts). */
  interface Database {
    api_keys: ApiKeysTable;
  }
}

/**
 * Other folders' tables this folder's queries read (joined where one statement answers better
 * than a call to their service); `npm run lint` checks that no query reaches another
 * (scripts/table-owners.mjs).
 */
export type Reads = 'tenants';
