import type { Selectable } from 'kysely';

/**
 * Append-only: one row each time a template's version or a cookie system's configuration was
 * made live (migration 0032), with what its leaf in the tenant's log states.
 */
export interface PublicationsTable {
  tenant_id: string;
  /** The publication's id: its leaf's record id. */
  id: string;
  what: 'template' | 'configuration';
  /** The template's id, or the configuration's. */
  of_id: string;
  version: number;
  published_at: string;
  effective_at: string;
  /** JSON array of `PublishedText` (src/proof/publication-leaf.ts), sorted by locale. */
  texts: string;
  /** JSON array of the partners' codes, sorted. */
  partners: string;
}

export type PublicationRow = Selectable<PublicationsTable>;

declare module '../platform/database.js' {
  /** The tables this folder owns, in the store's one schema (src/platform/database.ts). */
  interface Database {
    publications: PublicationsTable;
  }
}
