import type { Selectable } from 'kysely';

/**
 * A bearer token a tenant's identity provider sends to `/scim/v2` (migration 0046). Only a
 * SHA-256 of the token is kept; the prefix (`scim_` and its next 8 characters) is what the
 * back-office and the audit log show to recognise it.
 */
export interface ScimTokensTable {
  id: string;
  tenant_id: string;
  name: string;
  prefix: string;
  /** Hex SHA-256 of the whole token. */
  token_hash: string;
  created_at: string;
  /** The e-mail of who made it. */
  created_by: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/**
 * What a provisioned user carries of the identity provider's own, beside the user itself
 * (`users` of src/accounts): one row per user, deleted with the user (a foreign key).
 */
export interface ScimUsersTable {
  user_id: string;
  tenant_id: string;
  /** The provider's id of the person (`externalId`), matched exactly. */
  external_id: string | null;
  given_name: string | null;
  family_name: string | null;
  display_name: string | null;
  /** JSON array of `{"value", "type"?, "primary"?}` as the provider sent them; null for none. */
  emails: string | null;
  updated_at: string;
}

export type ScimTokenRow = Selectable<ScimTokensTable>;
export type ScimUserRow = Selectable<ScimUsersTable>;

declare module '../platform/database.js' {
  /** The tables this folder owns, in the store's one schema (src/platform/database.ts). */
  interface Database {
    scim_tokens: ScimTokensTable;
    scim_users: ScimUsersTable;
  }
}

/**
 * Other folders' tables this folder's queries read (joined where one statement answers better
 * than a call to their service); `npm run lint` checks that no query reaches another
 * (scripts/table-owners.mjs).
 */
export type Reads = 'tenants';
