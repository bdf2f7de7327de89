import type { Selectable } from 'kysely';

/** One scan of a cookie system (migration 0040); its findings are kept once it is done. */
export interface CookieScansTable {
  tenant_id: string;
  id: string;
  system_id: string;
  /** `running`, `done`, `failed`, or `interrupted` (its instance stopped before it finished). */
  status: string;
  /** `command-line`, `back-office` or `schedule`. */
  trigger: string;
  /** Who started it: a back-office user's id, `command line` or `schedule`. */
  actor: string;
  /** JSON array of the URLs it started from. */
  urls: string;
  pages_limit: number;
  started_at: string;
  finished_at: string | null;
  violations: number;
  /** Cookies and hosts new since the scan before, and those gone. */
  changes: number;
  /** JSON: the findings (`ScanFindings`), once done. */
  result: string | null;
  /** Why it failed, in words. */
  error: string | null;
}

export type CookieScanRow = Selectable<CookieScansTable>;

/** A system scanned on a schedule (migration 0040): every `every_days`, the next at `next_at`. */
export interface CookieScanSchedulesTable {
  tenant_id: string;
  system_id: string;
  every_days: number;
  pages: number;
  next_at: string;
  updated_at: string;
}

/**
 * A tenant's own classification of a cookie name (a prefix ends in `*`) or a host and its
 * subdomains (migration 0043): it wins over every other source in the tenant's scans.
 */
export interface CookieClassificationOverridesTable {
  tenant_id: string;
  kind: 'cookie' | 'host';
  pattern: string;
  category: string;
  provider: string | null;
  purpose: string | null;
  retention: string | null;
  updated_at: string;
}

declare module '../platform/database.js' {
  /** The tables this folder owns, in the store's one schema (src/platform/database.ts). */
  interface Database {
    cookie_scans: CookieScansTable;
    cookie_scan_schedules: CookieScanSchedulesTable;
    cookie_classification_overrides: CookieClassificationOverridesTable;
  }
}
