import type { Selectable } from 'kysely';

/** A business area that owns consent requirements: every template belongs to one. */
export interface ProductsTable {
  tenant_id: string;
  id: string;
  /** Unique in the tenant; fixed once made. */
  code: string;
  name: string;
  description: string;
  /** When it was archived: it then takes no new template, and its templates go on working. */
  archived_at: string | null;
  created_at: string;
  updated_at: string;
}

export type ProductRow = Selectable<ProductsTable>;

declare module '../platform/database.js' {
  /** The tables this folder owns, in the store's one schema (src/platform/database.ts). */
  interface Database {
    products: ProductsTable;
  }
}

/**
 * Other folders' tables this folder's queries read (joined where one statement answers better
 * than a call to their service); `npm run lint` checks that no query reaches another
 * (scripts/table-owners.mjs).
 */
export type Reads = 'templates';
