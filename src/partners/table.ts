import type { Selectable } from 'kysely';

/** A third party that may receive customer data, in a tenant's register (migration 0021). */
export interface PartnersTable {
  tenant_id: string;
  id: string;
  /** A lowercase slug, unique in the tenant; fixed once made (releases list partners by it). */
  code: string;
  name: string;
  /** What the partner receives data for; empty when not given. */
  purpose: string;
  /** ISO 3166-1 alpha-2, upper case; null when not given. */
  country: string | null;
  /** The partner's privacy policy, an https URL; null when not given. */
  policy_url: string | null;
  created_at: string;
  updated_at: string;
}

/** A partner a release's text allows data to be shared with, kept for good once published. */
export interface VersionPartnersTable {
  tenant_id: string;
  /** The release's own id (`template_versions.release_id`): every locale lists the same. */
  release_id: string;
  partner_code: string;
  created_at: string;
}

export type PartnerRow = Selectable<PartnersTable>;

declare module '../platform/database.js' {
  /** The tables this folder owns, in the store's one schema (src/platform/database.ts). */
  interface Database {
    partners: PartnersTable;
    version_partners: VersionPartnersTable;
  }
}
