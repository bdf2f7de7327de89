/**
 * Choices refused because their page's origin is not one of the system's: counted per system and
 * origin, so that the owner sees a site they forgot to list (the system's back-office page).
 *
 * The refusal comes before the rate limit and from anyone: a store write per refused request
 * would let a stream of forged `Origin`s write as fast as it is sent. So a refusal costs a map
 * update in memory, and each instance adds what it counted to the store every 10 seconds (and
 * when it closes, and before the system's page reads them): a crash loses at most those seconds
 * of counts, which only say "this origin keeps trying", never a record. What an anonymous caller
 * can make the service keep is bounded: per system, 50 origins, and one `other` row counting
 * every origin past them (and any value that is no http(s) origin, `null` included); a request
 * with no `Origin` is no browser page and is not counted.
 */
import type { Db, Executor } from '../platform/db.js';
import { type Periodic, startPeriodic } from '../platform/periodic.js';
import {
  addRefusals,
  findRefusedOriginNames,
  listRefusedOriginRows,
} from './refused-origins-repository.js';
import { getSystem } from './systems.js';

/** Origins kept per system; every further one is counted in the `other` row. */
export const refusedOriginsKept = 50;
/** The `origin` of the row that counts every other origin. */
const other = '';
const flushEveryMs = 10_000;

/** What a browser sends as `Origin` for an http(s) page: scheme, host and port, no more. */
const originShape = /^https?:\/\/(?:\[[0-9a-f:.]{2,45}\]|[a-z0-9.-]{1,253})(?::[0-9]{1,5})?$/i;

interface Count {
  refusals: number;
  firstAt: string;
  lastAt: string;
}

interface SystemCounts {
  tenantId: string;
  systemId: string;
  origins: Map<string, Count>;
}

export interface RefusedOrigins {
  /** Counts a refused choice of the system from this `Origin`; never waits, never throws. */
  note(system: { tenantId: string; systemId: string }, origin: string): void;
  /** Adds what this instance counted to the store now. */
  flush(): Promise<void>;
  /** Stops the periodic adding, after adding what is left. */
  close(): Promise<void>;
}

function add(into: SystemCounts, origin: string, count: Count): void {
  // In memory as in the store, a system holds at most `refusedOriginsKept` origins and `other`.
  const key =
    into.origins.has(origin) || (origin !== other && into.origins.size < refusedOriginsKept)
      ? origin
      : other;
  const kept = into.origins.get(key);
  if (!kept) {
    into.origins.set(key, { ...count });
    return;
  }
  kept.refusals += count.refusals;
  if (count.firstAt < kept.firstAt) kept.firstAt = count.firstAt;
  if (count.lastAt > kept.lastAt) kept.lastAt = count.lastAt;
}

/** The counter of refused origins of every system, adding to the store every 10 seconds. */
export function countRefusedOrigins(db: Db, failed: (error: unknown) => void): RefusedOrigins {
  let pending = new Map<string, SystemCounts>();

  const systemOf = (tenantId: string, systemId: string) => {
    const key = `${tenantId}\u0000${systemId}`;
    let counts = pending.get(key);
    if (!counts) {
      counts = { tenantId, systemId, origins: new Map() };
      pending.set(key, counts);
    }
    return counts;
  };

  const store = async (counts: SystemCounts) => {
    await db.transaction().execute(async (trx) => {
      const known = new Set(
        (await findRefusedOriginNames(trx, counts.tenantId, counts.systemId)).filter(
          (origin) => origin !== other,
        ),
      );
      const rows: SystemCounts = { ...counts, origins: new Map() };
      for (const [origin, count] of counts.origins) {
        // Two instances adding at once may each take the last place: a few more than the cap at
        // worst, never an unbounded number.
        const kept = origin !== other && (known.has(origin) || known.size < refusedOriginsKept);
        if (kept) known.add(origin);
        add(rows, kept ? origin : other, count);
      }
      for (const [origin, count] of rows.origins) {
        await addRefusals(trx, { ...counts, origin, ...count });
      }
    });
  };

  const flush = async () => {
    const taken = pending;
    pending = new Map();
    for (const counts of taken.values()) {
      try {
        await store(counts);
      } catch (error) {
        // Kept for the next pass (a store outage); the bound holds, as for new counts.
        const again = systemOf(counts.tenantId, counts.systemId);
        for (const [origin, count] of counts.origins) add(again, origin, count);
        failed(error);
      }
    }
  };

  const loop: Periodic = startPeriodic(flushEveryMs, flush, failed);
  return {
    note(system, origin) {
      const now = new Date().toISOString();
      const counted = originShape.test(origin) ? origin.toLowerCase() : other;
      add(systemOf(system.tenantId, system.systemId), counted, {
        refusals: 1,
        firstAt: now,
        lastAt: now,
      });
    },
    flush: () => loop.run(),
    async close() {
      await loop.stop();
      await flush();
    },
  };
}

/** A refused origin as the system's page shows it; `origin` null for every other one. */
export interface RefusedOrigin {
  origin: string | null;
  refusals: number;
  first_seen_at: string;
  last_seen_at: string;
}

/**
 * The origins refused on a system of the tenant, the most recently seen first, but those it
 * lists now (added since they were refused), whose counts are history.
 */
export async function listRefusedOrigins(
  db: Executor,
  tenantId: string,
  scope: string,
): Promise<RefusedOrigin[]> {
  const system = await getSystem(db, tenantId, scope);
  const allowed = new Set(JSON.parse(system.origins) as string[]);
  const rows = await listRefusedOriginRows(db, tenantId, system.id);
  return rows
    .filter((row) => !allowed.has(row.origin))
    .map((row) => ({
      origin: row.origin === other ? null : row.origin,
      refusals: Number(row.refusals),
      first_seen_at: row.first_seen_at,
      last_seen_at: row.last_seen_at,
    }));
}
