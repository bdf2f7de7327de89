/** A tenant's single sign-on with OpenID Connect (migration 0045): one row per tenant that set it. */
export interface TenantSsoTable {
  tenant_id: string;
  /** The identity provider's issuer: its discovery document is `<issuer>/.well-known/openid-configuration`. */
  issuer: string;
  client_id: string;
  /** Sealed under the data key, bound to the tenant (`accountSecrets`). */
  client_secret_sealed: string;
  /** The ID token's claim that carries the person's e-mail (`email`, or `preferred_username`, `upn`). */
  email_claim: string;
  /** The claim that carries their groups (`groups`, or `roles`). */
  groups_claim: string;
  /** JSON array of `{"group": "…", "role": "<role id>"}`: the roles each group gives. */
  group_roles: string;
  /** 0 or 1: whether a person with no user yet is made one on their first sign-in. */
  create_users: number;
  /** 0 or 1: whether every other way in is refused, but for the break-glass user's password. */
  required: number;
  /** The one user who may still sign in with a password and second factor when SSO is required. */
  break_glass_user_id: string | null;
  updated_at: string;
}

declare module '../platform/database.js' {
  /** The tables this folder owns, in the store's one schema (src/platform/database.ts). */
  interface Database {
    tenant_sso: TenantSsoTable;
  }
}
