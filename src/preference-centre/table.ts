import type { Insertable, Selectable } from 'kysely';

/** A tenant's preference centre: what its customers' page shows of the tenant, and where from. */
export interface PreferenceCentresTable {
  tenant_id: string;
  /** The name shown at the top of the page; null: the tenant's alias. */
  display_name: string | null;
  /** An `https:` image URL (or one of the allowed origins'); null: no logo. */
  logo_url: string | null;
  /** `#rrggbb` of buttons and links; null: the service's own. */
  accent_colour: string | null;
  /** `#rrggbb` of the band at the top of the page; null: the service's own. */
  header_colour: string | null;
  /** JSON array of origins (`https://shop.example`) a link may return to and frame the page. */
  allowed_origins: string;
  /** The API key that e-mail sign-ins act under (since 0026); null: e-mail sign-in is off. */
  email_key_id: string | null;
  updated_at: string;
}

/** A link exchanged for a session: it opens once. */
export interface PreferenceLinkUsesTable {
  link_id: string;
  tenant_id: string;
  used_at: string;
  expires_at: string;
}

export type PreferenceCentreRow = Selectable<PreferenceCentresTable>;

/**
 * A one-time code asked for on the sign-in page. Neither the address nor the code is kept: the
 * customer's keyed look-up stands for the one, an HMAC of the row's id and the code for the other.
 */
export interface PreferenceCodesTable {
  id: string;
  tenant_id: string;
  lookup: string;
  code_hash: string;
  /** Wrong codes given so far; at 3 the code is dead. */
  tries: number;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export type PreferenceCodeRow = Selectable<PreferenceCodesTable>;
export type NewPreferenceCode = Insertable<PreferenceCodesTable>;

declare module '../platform/database.js' {
  /** The tables this folder owns, in the store's one schema (src/platform/database.ts). */
  interface Database {
    preference_centres: PreferenceCentresTable;
    preference_link_uses: PreferenceLinkUsesTable;
    preference_codes: PreferenceCodesTable;
  }
}
