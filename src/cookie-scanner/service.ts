/**
 * A scan of a cookie system (docs/cookie-scans.md): its pages crawled in a real Chromium in three
 * phases, what they set and sent classified, the violations picked out, and the result kept with
 * what changed since the scan before. At most one scan of a system runs at a time, across every
 * instance (the store's unique index on a system's `running` scan).
 */
import { type Actor, recordAudit } from '../audit-trail/index.js';
import { currentCookieDatabase } from '../cookie-database/index.js';
import { getConfiguration, getSystem } from '../cookies/index.js';
import type { CookieScanSettings } from '../platform/config.js';
import { type Db, isUniqueViolation } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/time.js';
import { launchScanBrowser } from './browser.js';
import { classifier, type DeclaredCategory } from './classify.js';
import { crawl, pageAddress } from './crawl.js';
import { changesSince, findingsOf, type ScanChanges, type ScanFindings } from './findings.js';
import { flagged, type Teller, tellFlagged } from './notify.js';
import { listOverrides } from './overrides.js';
import {
  endScan,
  findScan,
  insertScan,
  interruptStaleScans,
  lastDoneScan,
  listScans,
} from './repository.js';
import type { CookieScanRow } from './table.js';

/** Pages scanned when none is said, and the most a scan may be asked for. */
export const defaultPages = 10;
export const maxPages = 100;
const maxUrls = 20;

export type ScanTrigger = 'command-line' | 'back-office' | 'schedule';

export interface ScanOrder {
  tenantId: string;
  /** The system's scope (`cs_…`). */
  system: string;
  /** Where to start; none: each of the system's origins. */
  urls?: string[];
  pages?: number;
  trigger: ScanTrigger;
  /** A back-office user's id, `command line` or `schedule`. */
  actor: string;
  /** Who the audit log names as having started it (`cookie_scan.started`); none for a schedule's. */
  auditedAs?: Omit<Actor, 'tenantId'>;
}

/** A scan as the command line and the back-office show it. */
export interface ScanView {
  scan_id: string;
  system: string;
  status: string;
  trigger: string;
  started_at: string;
  finished_at: string | null;
  urls: string[];
  pages_limit: number;
  violations_count: number;
  changes_count: number;
  error: string | null;
}

export type ScanResult = ScanView &
  ScanFindings & {
    changes: ScanChanges;
    /** The copy of the Open Cookie Database it classified with. */
    database: { copy: string; sha256: string; entries: number };
  };

/** The start URLs of a scan: those given (http or https, no more than 20), else the origins'. */
function startUrls(given: string[] | undefined, origins: string[]): string[] {
  const urls = given?.length ? given : origins.map((o) => `${o}/`);
  if (urls.length === 0) {
    throw new AppError('invalidRequest', {
      message: 'The system lists no origins to scan: give the URLs to start from.',
      details: [{ field: 'urls', issue: 'is needed when the system lists no origin' }],
    });
  }
  if (urls.length > maxUrls) {
    throw new AppError('invalidRequest', {
      details: [{ field: 'urls', issue: `has more than ${maxUrls} addresses` }],
    });
  }
  return urls.map((url, i) => {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      parsed = undefined;
    }
    if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
      throw new AppError('invalidRequest', {
        message: `Not an http(s) address to scan: ${url}`,
        details: [{ field: `urls.${i}`, issue: 'is not an http or https URL' }],
      });
    }
    return pageAddress(parsed.href);
  });
}

function pagesOf(pages: number | undefined): number {
  const n = pages ?? defaultPages;
  if (!Number.isInteger(n) || n < 1 || n > maxPages) {
    throw new AppError('invalidRequest', {
      message: `The number of pages is a whole number from 1 to ${maxPages}.`,
      details: [{ field: 'pages', issue: `is not a whole number from 1 to ${maxPages}` }],
    });
  }
  return n;
}

function viewOf(row: Omit<CookieScanRow, 'result'>, scope: string): ScanView {
  return {
    scan_id: row.id,
    system: scope,
    status: row.status,
    trigger: row.trigger,
    started_at: row.started_at,
    finished_at: row.finished_at,
    urls: JSON.parse(row.urls) as string[],
    pages_limit: row.pages_limit,
    violations_count: row.violations,
    changes_count: row.changes,
    error: row.error,
  };
}

/** The categories of the system's published configuration, as the classifier reads them. */
async function declaredOf(
  db: Db,
  tenantId: string,
  configurationId: string | null,
): Promise<DeclaredCategory[]> {
  if (configurationId === null) return [];
  const { content } = await getConfiguration(db, tenantId, configurationId);
  return content.categories.map((c) => ({
    key: c.key,
    required: c.required,
    cookies: c.cookies ?? [],
  }));
}

/**
 * Takes the system's one running place (a `409 1005` when a scan of it is running), or throws
 * the order's mistakes first. Answers the new scan's row and the system's id.
 */
export async function startScan(
  db: Db,
  settings: CookieScanSettings,
  order: ScanOrder,
): Promise<{ row: CookieScanRow; systemId: string; origins: string[] }> {
  const system = await getSystem(db, order.tenantId, order.system);
  const origins = JSON.parse(system.origins) as string[];
  const urls = startUrls(order.urls, origins);
  const pages = pagesOf(order.pages);
  const now = nowIso();
  // A scan never outlives its time limit; one running for longer lost its instance.
  const stale = new Date(Date.now() - settings.timeLimitMs - 120_000).toISOString();
  await interruptStaleScans(db, order.tenantId, system.id, stale, now);
  const row: CookieScanRow = {
    tenant_id: order.tenantId,
    id: newId(),
    system_id: system.id,
    status: 'running',
    trigger: order.trigger,
    actor: order.actor,
    urls: JSON.stringify(urls),
    pages_limit: pages,
    started_at: now,
    finished_at: null,
    violations: 0,
    changes: 0,
    result: null,
    error: null,
  };
  try {
    await insertScan(db, row);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    throw new AppError('conflict', {
      message: 'A scan of this system is running: wait for it to finish.',
    });
  }
  if (order.auditedAs) {
    await recordAudit(db, {
      ...order.auditedAs,
      tenantId: order.tenantId,
      action: 'cookie_scan.started',
      target: order.system,
      details: { scan_id: row.id, urls, pages },
    });
  }
  return { row, systemId: system.id, origins };
}

/**
 * Runs a started scan to its end and keeps the result: `done` with its findings, or `failed`
 * with why (the browser would not start, the store went away). Never throws for the site's sake:
 * a page that misbehaves is in the findings.
 */
export async function finishScan(
  db: Db,
  settings: CookieScanSettings,
  publicBaseUrl: string,
  started: { row: CookieScanRow; systemId: string },
  scope: string,
  teller?: Teller,
): Promise<ScanResult> {
  const { row } = started;
  const tenantId = row.tenant_id;
  try {
    const deadline = Date.parse(row.started_at) + settings.timeLimitMs;
    const browser = await launchScanBrowser(settings);
    let crawled: Awaited<ReturnType<typeof crawl>>;
    try {
      crawled = await crawl(browser.browser, {
        urls: JSON.parse(row.urls) as string[],
        pages: row.pages_limit,
        pageTimeoutMs: settings.pageTimeoutMs,
        deadline,
      });
    } finally {
      await browser.close();
    }
    const system = await getSystem(db, tenantId, scope);
    const declared = await declaredOf(db, tenantId, system.published_configuration_id);
    const copy = await currentCookieDatabase(db);
    const findings = findingsOf(
      crawled,
      classifier({
        database: copy.database,
        declared,
        overrides: await listOverrides(db, tenantId),
        serviceHost: new URL(publicBaseUrl).host,
      }),
      new Set(declared.filter((c) => c.required).map((c) => c.key)),
    );
    const before = await lastDoneScan(db, tenantId, started.systemId, row.id);
    const changes = changesSince(
      findings,
      before?.result ? { id: before.id, findings: JSON.parse(before.result) } : undefined,
    );
    const finished = {
      status: 'done',
      finished_at: nowIso(),
      violations: findings.violations.length,
      changes:
        changes.new_cookies.length +
        changes.gone_cookies.length +
        changes.new_hosts.length +
        changes.gone_hosts.length,
    };
    const database = { copy: copy.copy, sha256: copy.sha256, entries: copy.entries };
    const kept = { ...findings, changes, database };
    const ended = await endScan(db, tenantId, row.id, {
      ...finished,
      result: JSON.stringify(kept),
    });
    const view = viewOf({ ...row, ...finished }, scope);
    if (!ended) {
      // Its instance marked it interrupted meanwhile (it is stopping): the findings are not kept.
      throw new AppError('conflict', { message: 'The scan was interrupted.' });
    }
    if (teller && flagged(findings, changes)) {
      await tellFlagged(
        db,
        teller,
        tenantId,
        { ...view, system_name: system.name },
        findings,
        changes,
      );
    }
    return { ...view, ...kept };
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    await endScan(db, tenantId, row.id, {
      status: 'failed',
      finished_at: nowIso(),
      error: message ?? 'The scan failed.',
    }).catch(() => {});
    throw error;
  }
}

/** Starts a scan and waits for its end (the command line's way). */
export async function runScan(
  db: Db,
  settings: CookieScanSettings,
  publicBaseUrl: string,
  order: ScanOrder,
  teller?: Teller,
): Promise<ScanResult> {
  const started = await startScan(db, settings, order);
  return finishScan(db, settings, publicBaseUrl, started, order.system, teller);
}

/** One scan, with its findings when it is done; `404 1004` for one not of the tenant. */
export async function getScan(
  db: Db,
  tenantId: string,
  scope: string,
  id: string,
): Promise<ScanView & Partial<ScanResult>> {
  const system = await getSystem(db, tenantId, scope);
  const row = await findScan(db, tenantId, id);
  if (!row || row.system_id !== system.id) {
    throw new AppError('notFound', { message: 'No such scan.' });
  }
  const kept = row.result === null ? {} : (JSON.parse(row.result) as Partial<ScanResult>);
  return { ...viewOf(row, scope), ...kept };
}

/** A system's scans, newest first (the history), without their findings. */
export async function scanHistory(
  db: Db,
  tenantId: string,
  scope: string,
  limit = 50,
): Promise<ScanView[]> {
  const system = await getSystem(db, tenantId, scope);
  return (await listScans(db, tenantId, system.id, limit)).map((row) => viewOf(row, scope));
}
