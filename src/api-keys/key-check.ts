import { timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { type CacheCounts, uncounted } from '../platform/cache-counts.js';
import type { Db } from '../platform/db.js';
import { digestsEqual, sha256Hex } from '../platform/hashing.js';
import { prefixOf } from './keys.js';
import { findActiveKeyByPrefix, updateKeyLastUsed } from './repository.js';
import type { ApiCaller } from './schemas.js';

/**
 * How long a key's record (or its absence) is trusted after the read that fetched it started:
 * a revoked key, or a key of a disabled tenant, is refused within 1 second on every instance.
 */
const keyMaxAgeMs = 900;

/** `last_used_at` is written at most this often per key, so reads do not each cost a write. */
const lastUsedResolutionMs = 60_000;

interface ActiveKey {
  tenantId: string;
  id: string;
  keyHash: string;
  /**
   * The key itself, once a request presented it: later requests compare their bytes with it (in
   * constant time) instead of hashing again. It lives as long as the cached record, under a
   * second, and a prefix names one key, so this answers exactly as the hash would.
   */
  verified?: Buffer;
}

/** The caller a key stands for, or undefined when it is missing, malformed, unknown or revoked. */
export type KeyVerdict = ApiCaller | undefined;

/** Checks presented API keys against the store, through a short-lived in-process cache. */
export interface KeyCheck {
  /** Resolves without reading the store while the key's record is cached (nearly every request). */
  check(presented: string | undefined): Promise<KeyVerdict>;
  /**
   * `check` without a promise when the answer needs no read (a malformed key, or the key's record
   * cached); undefined when the store must be read.
   */
  known(presented: string | undefined): { verdict: KeyVerdict } | undefined;
}

/** Where a dropped bookkeeping write is reported (the app's logger at warn). */
export type KeyCheckWarn = (details: Record<string, unknown>, message: string) => void;

export function createKeyCheck(
  db: Db,
  warn: KeyCheckWarn = () => {},
  counts: CacheCounts = uncounted,
): KeyCheck {
  const records = new LRUCache<string, { key: ActiveKey | null }>({
    max: 10_000,
    ttl: keyMaxAgeMs,
    // See the catalog: the clock is read on every look-up so an entry never outlives its bound.
    ttlResolution: 0,
    fetchMethod: async (prefix, _stale, { options }) => {
      const started = performance.now();
      const row = await findActiveKeyByPrefix(db, prefix);
      options.ttl = Math.max(1, keyMaxAgeMs - (performance.now() - started));
      if (!row) return { key: null };
      if (row.last_used_at && !lastWritten.has(row.id)) {
        lastWritten.set(row.id, Date.parse(row.last_used_at));
      }
      return { key: { tenantId: row.tenant_id, id: row.id, keyHash: row.key_hash } };
    },
  });
  const lastWritten = new LRUCache<string, number>({ max: 10_000 });

  /**
   * Writes `last_used_at`, at most once a minute per key, beside the request rather than in its
   * way: it is bookkeeping, so a store that refuses the write (full, read-only) costs the
   * request nothing, and the write is dropped with a warning.
   */
  function recordUse(key: ActiveKey): void {
    const now = Date.now();
    if (now - (lastWritten.get(key.id) ?? 0) < lastUsedResolutionMs) return;
    lastWritten.set(key.id, now);
    updateKeyLastUsed(db, key.tenantId, key.id, new Date(now).toISOString()).catch(
      (error: unknown) => warn({ err: error, apiKeyId: key.id }, 'last use not recorded'),
    );
  }

  function matches(presented: string, record: ActiveKey): boolean {
    const bytes = Buffer.from(presented, 'utf8');
    if (record.verified) {
      return bytes.length === record.verified.length && timingSafeEqual(bytes, record.verified);
    }
    if (!digestsEqual(sha256Hex(presented), record.keyHash)) return false;
    record.verified = bytes;
    return true;
  }

  function verdict(presented: string, record: ActiveKey | null): KeyVerdict {
    if (!record || !matches(presented, record)) return undefined;
    recordUse(record);
    return { tenantId: record.tenantId, apiKeyId: record.id };
  }

  const refused = { verdict: undefined };

  function known(presented: string | undefined): { verdict: KeyVerdict } | undefined {
    const prefix = presented ? prefixOf(presented) : undefined;
    if (!presented || !prefix) return refused;
    const cached = records.get(prefix);
    // A miss is counted by `check`, which reads the store after it.
    if (!cached) return undefined;
    counts.hit();
    return { verdict: verdict(presented, cached.key) };
  }

  return {
    known,
    async check(presented) {
      const now = known(presented);
      const prefix = presented ? prefixOf(presented) : undefined;
      if (now || !presented || !prefix) return now?.verdict;
      counts.miss();
      const fetched = await records.fetch(prefix);
      return verdict(presented, fetched?.key ?? null);
    },
  };
}
