import { LRUCache } from 'lru-cache';
import { type ListedPartner, partnersOfRelease } from '../partners/index.js';
import { type CacheCounts, uncounted } from '../platform/cache-counts.js';
import type { Db } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { sha256Hex } from '../platform/hashing.js';
import { chooseLocale } from './locales.js';
import {
  findDecisionRules,
  findLatestRelease,
  findPublishedById,
  type VariantWithTemplate,
  type VersionWithCode,
} from './repository.js';
import { type RepresentationRule, representationOf } from './representation.js';
import type { PublishedVersion } from './schemas.js';
import { dataCategoriesOf } from './sensitivity.js';
import { presentLocalized, presentVersion } from './service.js';

/**
 * The contract lets a publish take up to 1 second to be seen; a cached "latest" answer is never
 * older than this, counted from the moment its query started.
 */
const latestMaxAgeMs = 900;

/** One locale's variant of the latest release, with its `latest` answers made once. */
export interface LatestEntry {
  version: VersionWithCode;
  /** V of contract section 4. */
  presented: PublishedVersion;
  /** `{"data": V}`, serialized: the answer to a request that names no locale. */
  body: string;
  /** V alone, serialized: the part of every `pending` answer that is the same for all. */
  presentedJson: string;
  etag: string;
  /** The same three with the variant's `locale`: the answer to a request that names one. */
  localized: { body: string; presentedJson: string; etag: string };
}

/** A template's latest live release: its variant per locale, and which answers by default. */
export interface LatestRelease {
  variants: ReadonlyMap<string, LatestEntry>;
  /** The locales it has, for matching. */
  locales: readonly string[];
  /** The template's default locale when the release has it, else the release's own locale. */
  defaultLocale: string;
  /** The variants' ids: a decision on any of them is a decision on the release. */
  ids: readonly string[];
  /** The variant answered per list of requested locales, as `variantFor` found it. */
  chosen: Map<string, LatestEntry>;
  /**
   * The template's validity period in calendar months (null: consent never lapses), read with
   * the release, so a change is seen within the same bound as a publish.
   */
  validityMonths: number | null;
  /**
   * Whether the template's rule asks for a co-consent for some basis (PDPA section 20): only then
   * does `pending` look for an act held for the other side. Read with the release likewise.
   */
  coConsent: boolean;
}

/**
 * Published versions, read through an in-process cache: a published version never changes, so
 * it is kept until evicted; which release is the latest may change with a publish or a go-live,
 * so that is re-read after `latestMaxAgeMs`. Concurrent misses for one key share one query.
 */
export interface Catalog {
  /**
   * The template's latest live release; `404 1004` when there is none. Resolves without reading
   * the store while it is cached (nearly every request).
   */
  latest(tenantId: string, code: string): Promise<LatestRelease>;
  /**
   * `latest` without a promise while it is cached (`404 1004` thrown for a cached absence);
   * undefined when the store must be read.
   */
  latestInMemory(tenantId: string, code: string): LatestRelease | undefined;
  /** A published version (any locale's variant) of the tenant by id, or undefined. */
  publishedById(tenantId: string, id: string): Promise<VersionWithCode | undefined>;
  /**
   * The template's validity period as `latest` has it (cached likewise); null for a template
   * `latest` does not know (archived, or nothing live).
   */
  validityMonths(tenantId: string, code: string): Promise<number | null>;
  /** The sensitive data categories of the template as `latest` has it; none when unknown. */
  dataCategories(tenantId: string, code: string): Promise<readonly string[]>;
  /** Who may decide for whom on the template (cached likewise); undefined: no rule. */
  representation(tenantId: string, code: string): Promise<RepresentationRule | undefined>;
}

/**
 * The variant answered to a request asking for these locales (none: the default, today's
 * answer): the exact tag, then its language, then the default.
 */
export function variantFor(release: LatestRelease, requested: readonly string[]): LatestEntry {
  const fallback = release.variants.get(release.defaultLocale) as LatestEntry;
  if (requested.length === 0) return fallback;
  // Matching costs microseconds; the release (cached for under a second) remembers its answers.
  const key = requested.join(',');
  let entry = release.chosen.get(key);
  if (!entry) {
    const locale = chooseLocale(requested, release.locales, release.defaultLocale);
    entry = release.variants.get(locale) ?? fallback;
    if (release.chosen.size >= maxChosen) release.chosen.clear();
    release.chosen.set(key, entry);
  }
  return entry;
}

/** The most lists of requested locales a release remembers its variant for. */
const maxChosen = 100;

export function createCatalog(
  db: Db,
  publicBaseUrl: string,
  counts: CacheCounts = uncounted,
): Catalog {
  const latest = new LRUCache<string, { entry: LatestRelease | null }, [string, string]>({
    max: 10_000,
    ttl: latestMaxAgeMs,
    // Read the clock on every look-up: the cache's default 1 ms clock refreshes on a timer, which
    // a busy event loop may not run for a long time, and a stale answer would outlive its bound.
    ttlResolution: 0,
    fetchMethod: async (_key, _stale, { options, context: [tenantId, code] }) => {
      const started = performance.now();
      const variants = await findLatestRelease(db, tenantId, code);
      // The release's partners are read with it, once per fill of the cache and never per
      // request; a published release's list never changes, and a partner renamed shows within
      // the same bound as a publish.
      const releaseId = variants[0]?.release_id;
      const partners = releaseId ? await partnersOfRelease(db, tenantId, releaseId) : [];
      // The entry's age counts from the query's start, not its end.
      options.ttl = Math.max(1, latestMaxAgeMs - (performance.now() - started));
      return {
        entry: variants.length > 0 ? latestRelease(variants, publicBaseUrl, partners) : null,
      };
    },
  });
  const byId = new LRUCache<string, VersionWithCode>({ max: 10_000 });
  // What a decision checks of a template (its sensitive data, who may decide for whom), cached
  // on its own with the same bound as `latest`: a decision reads it without filling `latest`,
  // whose answers stay as fresh as before.
  const rules = new LRUCache<string, DecisionRules, [string, string]>({
    max: 10_000,
    ttl: latestMaxAgeMs,
    ttlResolution: 0,
    fetchMethod: async (_key, _stale, { context: [tenantId, code] }) => {
      const stored = await findDecisionRules(db, tenantId, code);
      return {
        categories: stored ? dataCategoriesOf(stored) : [],
        representation: stored ? representationOf(stored) : undefined,
      };
    },
  });
  async function rulesOf(tenantId: string, code: string): Promise<DecisionRules | undefined> {
    const key = `${tenantId}\u0000${code}`;
    return rules.get(key) ?? (await rules.fetch(key, { context: [tenantId, code] }));
  }
  /** The latest release, or undefined for a template `latest` does not know. */
  async function latestOrNone(tenantId: string, code: string) {
    try {
      return await catalog.latest(tenantId, code);
    } catch (error) {
      if (error instanceof AppError && error.kind === 'templateNotFound') return undefined;
      throw error;
    }
  }
  const catalog: Catalog = {
    latestInMemory(tenantId, code) {
      const cached = latest.get(`${tenantId}\u0000${code}`);
      // A miss here is counted by the `latest` call that follows it.
      if (!cached) return undefined;
      counts.hit();
      return found(cached.entry);
    },
    async latest(tenantId, code) {
      const key = `${tenantId}\u0000${code}`;
      const cached = latest.get(key);
      if (cached) {
        counts.hit();
        return found(cached.entry);
      }
      counts.miss();
      const fetched = await latest.fetch(key, { context: [tenantId, code] });
      const release = found(fetched?.entry ?? null);
      for (const { version } of release.variants.values()) {
        byId.set(`${tenantId}\u0000${version.id}`, version);
      }
      return release;
    },
    async publishedById(tenantId, id) {
      const key = `${tenantId}\u0000${id}`;
      const cached = byId.get(key);
      if (cached) {
        counts.hit();
        return cached;
      }
      counts.miss();
      // Unknown and draft ids are not remembered: a draft may be published a moment later.
      const version = await findPublishedById(db, tenantId, id);
      if (version) byId.set(key, version);
      return version;
    },
    async validityMonths(tenantId, code) {
      return (await latestOrNone(tenantId, code))?.validityMonths ?? null;
    },
    async dataCategories(tenantId, code) {
      return (await rulesOf(tenantId, code))?.categories ?? [];
    },
    async representation(tenantId, code) {
      return (await rulesOf(tenantId, code))?.representation;
    },
  };
  return catalog;
}

function found(entry: LatestRelease | null): LatestRelease {
  if (!entry) throw new AppError('templateNotFound');
  return entry;
}

function latestRelease(
  variants: VariantWithTemplate[],
  publicBaseUrl: string,
  partners: readonly ListedPartner[],
): LatestRelease {
  const entries = new Map(variants.map((v) => [v.locale, latestEntry(v, publicBaseUrl, partners)]));
  const own = variants.find((v) => v.id === v.release_id) ?? (variants[0] as VariantWithTemplate);
  const templateDefault = own.default_locale;
  return {
    variants: entries,
    locales: [...entries.keys()],
    defaultLocale: entries.has(templateDefault) ? templateDefault : own.locale,
    ids: variants.map((v) => v.id),
    chosen: new Map(),
    validityMonths: own.validity_months,
    coConsent: Object.values(representationOf(own) ?? {}).includes('subject-with-representative'),
  };
}

/**
 * One variant's answers. `partners` is added, last, only when the release lists some: a release
 * without partners answers exactly as before partners existed.
 */
function latestEntry(
  version: VersionWithCode,
  publicBaseUrl: string,
  partners: readonly ListedPartner[],
): LatestEntry {
  const listed = partners.length > 0 ? { partners: partners.map((p) => ({ ...p })) } : {};
  const presented = { ...presentVersion(version, publicBaseUrl), ...listed };
  const presentedJson = JSON.stringify(presented);
  const body = `{"data":${presentedJson}}`;
  const localizedJson = JSON.stringify({ ...presentLocalized(version, publicBaseUrl), ...listed });
  const localizedBody = `{"data":${localizedJson}}`;
  return {
    version,
    presented,
    body,
    presentedJson,
    etag: etagOf(body),
    localized: { body: localizedBody, presentedJson: localizedJson, etag: etagOf(localizedBody) },
  };
}

function etagOf(body: string): string {
  return `"${sha256Hex(body).slice(0, 32)}"`;
}

/** What a decision checks of a template, as cached. */
interface DecisionRules {
  categories: readonly string[];
  representation: RepresentationRule | undefined;
}
