import { LRUCache } from 'lru-cache';
import type { Db } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { sha256Hex } from '../platform/hashing.js';
import { findLatestPublished, findPublishedById, type VersionWithCode } from './repository.js';
import type { PublishedVersion } from './schemas.js';
import { presentVersion } from './service.js';

/**
 * The contract lets a publish take up to 1 second to be seen; a cached "latest" answer is never
 * older than this, counted from the moment its query started.
 */
const latestMaxAgeMs = 900;

/** The latest published version of a template, with its `latest` answer made once. */
export interface LatestEntry {
  version: VersionWithCode;
  /** V of contract section 4. */
  presented: PublishedVersion;
  /** `{"data": V}`, serialized. */
  body: string;
  /** V alone, serialized: the part of every `pending` answer that is the same for all. */
  presentedJson: string;
  etag: string;
}

/**
 * Published versions, read through an in-process cache: a published version never changes, so
 * it is kept until evicted; which version is the latest may change with a publish, so that is
 * re-read after `latestMaxAgeMs`. Concurrent misses for one key share one query.
 */
export interface Catalog {
  /**
   * The template's latest published version; `404 1004` when there is none. Resolves without
   * reading the store while it is cached (nearly every request).
   */
  latest(tenantId: string, code: string): Promise<LatestEntry>;
  /** A published version of the tenant by id, or undefined. */
  publishedById(tenantId: string, id: string): Promise<VersionWithCode | undefined>;
}

export function createCatalog(db: Db, publicBaseUrl: string): Catalog {
  const latest = new LRUCache<string, { entry: LatestEntry | null }, [string, string]>({
    max: 10_000,
    ttl: latestMaxAgeMs,
    // Read the clock on every look-up: the cache's default 1 ms clock refreshes on a timer, which
    // a busy event loop may not run for a long time, and a stale answer would outlive its bound.
    ttlResolution: 0,
    fetchMethod: async (_key, _stale, { options, context: [tenantId, code] }) => {
      const started = performance.now();
      const version = await findLatestPublished(db, tenantId, code);
      // The entry's age counts from the query's start, not its end.
      options.ttl = Math.max(1, latestMaxAgeMs - (performance.now() - started));
      return { entry: version ? latestEntry(version, publicBaseUrl) : null };
    },
  });
  const byId = new LRUCache<string, VersionWithCode>({ max: 10_000 });
  return {
    async latest(tenantId, code) {
      const key = `${tenantId}\u0000${code}`;
      const cached = latest.get(key);
      if (cached) return found(cached.entry);
      const fetched = await latest.fetch(key, { context: [tenantId, code] });
      const entry = found(fetched?.entry ?? null);
      byId.set(`${tenantId}\u0000${entry.version.id}`, entry.version);
      return entry;
    },
    async publishedById(tenantId, id) {
      const key = `${tenantId}\u0000${id}`;
      const cached = byId.get(key);
      if (cached) return cached;
      // Unknown and draft ids are not remembered: a draft may be published a moment later.
      const version = await findPublishedById(db, tenantId, id);
      if (version) byId.set(key, version);
      return version;
    },
  };
}

function found(entry: LatestEntry | null): LatestEntry {
  if (!entry) throw new AppError('templateNotFound');
  return entry;
}

function latestEntry(version: VersionWithCode, publicBaseUrl: string): LatestEntry {
  const presented = presentVersion(version, publicBaseUrl);
  const presentedJson = JSON.stringify(presented);
  const body = `{"data":${presentedJson}}`;
  return { version, presented, body, presentedJson, etag: `"${sha256Hex(body).slice(0, 32)}"` };
}
