import type { Selectable } from 'kysely';

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
