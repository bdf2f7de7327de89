/**
 * A crawl's raw sightings made into a scan's findings: each cookie, storage key and third-party
 * host classified, the violations picked out, and what changed since the scan before.
 *
 * A **violation** is, before any choice or after *Reject all*: a cookie of a category that is not
 * necessary (nor one the configuration marks required), or a request to a tracker's host (one of
 * analytics, marketing or personalization, or a tenant's own category). Something nothing could
 * classify is listed as `unclassified`, for the owner to classify, and is no violation.
 */
import type { Category, Classifier } from './classify.js';
import type { Crawl, PageReport, Phase } from './crawl.js';

export interface FoundCookie {
  name: string;
  domain: string;
  path: string;
  /** When it expires (ISO 8601); null for a session cookie. */
  expires: string | null;
  category: Category;
  provider: string | null;
  phase: Phase;
  page: string;
  platform: string | null;
  purpose: string | null;
  retention: string | null;
  classified_by: string | null;
  http_only: boolean;
  secure: boolean;
  same_site: string;
  cause: string | null;
}

export interface FoundRequest {
  host: string;
  category: Category;
  provider: string | null;
  phase: Phase;
  page: string;
  platform: string | null;
  classified_by: string | null;
  /** The first address of the host asked for in the phase. */
  url: string;
  cause: string | null;
}

export interface FoundStorage {
  area: 'local' | 'session';
  key: string;
  category: Category;
  provider: string | null;
  phase: Phase;
  page: string;
}

export type Violation =
  | {
      kind: 'cookie';
      name: string;
      domain: string;
      page: string;
      phase: Phase;
      category: Category;
      cause: string | null;
    }
  | {
      kind: 'request';
      host: string;
      page: string;
      phase: Phase;
      category: Category;
      cause: string | null;
    };

/** Cookies (by name and domain) and hosts that are new since the scan before, or gone. */
export interface ScanChanges {
  /** The scan compared with; null for a system's first scan (nothing is then called new). */
  since: string | null;
  new_cookies: { name: string; domain: string }[];
  gone_cookies: { name: string; domain: string }[];
  new_hosts: string[];
  gone_hosts: string[];
}

export interface ScanFindings {
  pages: string[];
  page_reports: PageReport[];
  cookies: FoundCookie[];
  requests: FoundRequest[];
  storage: FoundStorage[];
  violations: Violation[];
  /** Whether the banner's *Accept all* and *Reject all* were found and clicked. */
  choices: { accept_all: boolean; reject_all: boolean };
  /** The time limit ended the scan before every page was scanned in every phase. */
  truncated: boolean;
}

/** Hosts of the categories that track a visitor: contacting one before consent is a violation. */
const notTracking = new Set(['necessary', 'functional', 'unclassified']);

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

/** The registrable part of a host as far as a scan needs it: the last two labels (or an address). */
function siteOf(host: string): string {
  const bare = host.replace(/:\d+$/, '');
  if (/^[\d.]+$/.test(bare) || bare.includes(':') || bare === 'localhost') return bare;
  return bare.split('.').slice(-2).join('.');
}

export function findingsOf(
  crawl: Crawl,
  classify: Classifier,
  /** The configuration's required categories: never a violation. */
  required: ReadonlySet<string>,
): ScanFindings {
  const checked = (phase: Phase) => phase !== 'accept-all';
  const firstParty = new Set(crawl.pages.map((p) => siteOf(hostOf(p))));
  const cookies: FoundCookie[] = crawl.cookies.map((c) => {
    const k = classify.cookie(c.name, c.domain);
    return {
      name: c.name,
      domain: c.domain,
      path: c.path,
      expires: c.expires > 0 ? new Date(c.expires * 1000).toISOString() : null,
      category: k.category,
      provider: k.provider,
      phase: c.phase,
      page: c.page,
      platform: k.platform,
      purpose: k.purpose,
      retention: k.retention,
      classified_by: k.source,
      http_only: c.httpOnly,
      secure: c.secure,
      same_site: c.sameSite,
      cause: c.cause,
    };
  });
  const requests: FoundRequest[] = crawl.requests
    .filter((r) => !firstParty.has(siteOf(r.host)))
    .map((r) => {
      const k = classify.host(r.host);
      return {
        host: r.host,
        category: k.category,
        provider: k.provider,
        phase: r.phase,
        page: r.page,
        platform: k.platform,
        classified_by: k.source,
        url: r.url,
        cause: r.cause,
      };
    });
  const storage: FoundStorage[] = crawl.storage.map((s) => {
    const k = classify.cookie(s.key, '');
    return {
      area: s.area,
      key: s.key,
      category: k.category,
      provider: k.provider,
      phase: s.phase,
      page: s.page,
    };
  });
  const violations: Violation[] = [
    ...cookies
      .filter(
        (c) =>
          checked(c.phase) &&
          c.category !== 'necessary' &&
          c.category !== 'unclassified' &&
          !required.has(c.category),
      )
      .map(
        (c): Violation => ({
          kind: 'cookie',
          name: c.name,
          domain: c.domain,
          page: c.page,
          phase: c.phase,
          category: c.category,
          cause: c.cause,
        }),
      ),
    ...requests
      .filter((r) => checked(r.phase) && !notTracking.has(r.category) && !required.has(r.category))
      .map(
        (r): Violation => ({
          kind: 'request',
          host: r.host,
          page: r.page,
          phase: r.phase,
          category: r.category,
          cause: r.cause,
        }),
      ),
  ];
  return {
    pages: crawl.pages,
    page_reports: crawl.reports,
    cookies,
    requests,
    storage,
    violations,
    choices: { accept_all: crawl.choices['accept-all'], reject_all: crawl.choices['reject-all'] },
    truncated: crawl.truncated,
  };
}

/** What is new and gone since `before` (a system's previous findings), by cookie and host. */
export function changesSince(
  findings: ScanFindings,
  before: { id: string; findings: ScanFindings } | undefined,
): ScanChanges {
  const cookieKeys = (f: ScanFindings) =>
    new Map(f.cookies.map((c) => [`${c.name}\n${c.domain}`, { name: c.name, domain: c.domain }]));
  const hosts = (f: ScanFindings) => new Set(f.requests.map((r) => r.host));
  if (!before) {
    return { since: null, new_cookies: [], gone_cookies: [], new_hosts: [], gone_hosts: [] };
  }
  const [now, then] = [cookieKeys(findings), cookieKeys(before.findings)];
  const [hostsNow, hostsThen] = [hosts(findings), hosts(before.findings)];
  return {
    since: before.id,
    new_cookies: [...now].filter(([k]) => !then.has(k)).map(([, v]) => v),
    gone_cookies: [...then].filter(([k]) => !now.has(k)).map(([, v]) => v),
    new_hosts: [...hostsNow].filter((h) => !hostsThen.has(h)),
    gone_hosts: [...hostsThen].filter((h) => !hostsNow.has(h)),
  };
}
