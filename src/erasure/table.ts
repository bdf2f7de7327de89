/** The record behind an `erased` tombstone leaf: one per template the customer had decided on. */
export interface ErasuresTable {
  tenant_id: string;
  id: string;
  subject_id: string;
  template_id: string;
  /** The version and text hash of the customer's last decision on the template. */
  version: number;
  content_sha256: string;
  erased_at: string;
}

declare module '../platform/database.js' {
  /** The tables this folder owns, in the store's one schema (src/platform/database.ts). */
  interface Database {
    erasures: ErasuresTable;
  }
}

/**
 * Other folders' tables this folder's queries read (joined where one statement answers better
 * than a call to their service); `npm run lint` checks that no query reaches another
 * (scripts/table-owners.mjs).
 */
export type Reads = 'decisions' | 'subjects';
