/** The copy of the database an operator refreshed from a file (migration 0040): one row, id 1. */
export interface CookieDatabaseTable {
  id: number;
  csv: string;
  sha256: string;
  entries: number;
  /** What the operator said it is (the file's name, or `--source`). */
  source: string;
  refreshed_at: string;
}

declare module '../platform/database.js' {
  /** The tables this folder owns, in the store's one schema (src/platform/database.ts). */
  interface Database {
    cookie_database: CookieDatabaseTable;
  }
}
