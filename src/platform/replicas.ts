import { Kysely, sql } from 'kysely';
import type { Database } from './database.js';
import { type Db, isStoreUnavailable, isTransientConflict } from './db.js';
import { createPostgresDialect } from './postgres.js';

/**
 * Reads that may go to PostgreSQL's streaming replicas (`DATABASE_READ_URL`, docs/scaling.md,
 * "Read replicas"), and never a stale one: before a read, the primary's WAL position is asked (a
 * statement that touches no table), and the replica serves the read only once it has replayed up
 * to it, so every write answered before the read began is in what it reads, whichever instance
 * made it. A replica that has not caught up within `maxWaitMs` is skipped for the read (the
 * primary serves it) and for a second after; one that fails (down, restarting, unreachable) is
 * skipped for a second, and the read goes to the next one or to the primary: a replica costs
 * no error.
 */

export interface ReplicaSettings {
  urls: readonly string[];
  poolSize: number;
  statementTimeoutMs: number;
  connectTimeoutMs: number;
  /** How long a read waits for a replica to replay up to the primary's position. */
  maxWaitMs: number;
}

/** A replica as health and metrics show it. */
export interface ReplicaState {
  /** Its host, port and database (never its password). */
  name: string;
  state: 'up' | 'behind' | 'down';
  /** Reads it served, and reads it handed to the primary (behind or failing). */
  served: number;
  skipped: number;
  /** Bytes of WAL it was behind the primary at its last check (null before any). */
  lagBytes: number | null;
  /** Why it is down, when it is. */
  error?: string;
}

export interface Replicas {
  /** Runs `read` on a replica caught up with the primary, else on the primary. */
  read<T>(read: (db: Db) => Promise<T>): Promise<T>;
  states(): ReplicaState[];
  close(): Promise<void>;
}

/**
 * Where a read that may go to a replica runs: `replicas.read`, or the primary alone when there
 * are none. The read itself is the same service function either way.
 */
export type ReadOn = <T>(read: (db: Db) => Promise<T>) => Promise<T>;

export function readOnOf(primary: Db, replicas: Replicas | undefined): ReadOn {
  return replicas ? (read) => replicas.read(read) : (read) => read(primary);
}

/** How long a replica that was behind or failed is left out. */
const restMs = 1_000;
/** How often a read waiting for a replica asks it again. */
const pollMs = 2;

interface Replica {
  db: Db;
  name: string;
  state: ReplicaState['state'];
  restUntil: number;
  served: number;
  skipped: number;
  lagBytes: number | null;
  error?: string;
}

export function nameOfUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
  } catch {
    return 'replica';
  }
}

export function createReplicas(primary: Db, settings: ReplicaSettings): Replicas | undefined {
  if (settings.urls.length === 0) return undefined;
  const replicas: Replica[] = settings.urls.map((url) => ({
    db: new Kysely<Database>({
      dialect: createPostgresDialect({
        databaseUrl: url,
        poolSize: settings.poolSize,
        statementTimeoutMs: settings.statementTimeoutMs,
        connectTimeoutMs: settings.connectTimeoutMs,
      }),
    }),
    name: nameOfUrl(url),
    state: 'up',
    restUntil: 0,
    served: 0,
    skipped: 0,
    lagBytes: null,
  }));
  let next = 0;

  /** The next replica not resting, in turn. */
  const pick = (): Replica | undefined => {
    const now = Date.now();
    for (let i = 0; i < replicas.length; i += 1) {
      const replica = replicas[(next + i) % replicas.length] as Replica;
      if (replica.restUntil <= now) {
        next = (next + i + 1) % replicas.length;
        return replica;
      }
    }
    return undefined;
  };

  /** Whether the replica has replayed up to `position`, waiting for it at most `maxWaitMs`. */
  const caughtUp = async (replica: Replica, position: string): Promise<boolean> => {
    const until = Date.now() + settings.maxWaitMs;
    for (;;) {
      const { rows } = await sql<{
        behind: string | null;
      }>`select pg_wal_lsn_diff(${position}::pg_lsn, pg_last_wal_replay_lsn())::text as behind`.execute(
        replica.db,
      );
      const behind =
        rows[0]?.behind === null || rows[0]?.behind === undefined ? null : Number(rows[0].behind);
      replica.lagBytes = behind === null ? null : Math.max(0, behind);
      if (behind !== null && behind <= 0) return true;
      if (behind === null || Date.now() >= until) return false;
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  };

  return {
    async read(read) {
      const replica = pick();
      if (!replica) return read(primary);
      let position: string;
      try {
        const { rows } = await sql<{
          lsn: string;
        }>`select pg_current_wal_lsn()::text as lsn`.execute(primary);
        position = rows[0]?.lsn ?? '';
      } catch {
        // The primary itself answers what it can (its own error, a 503, if it is down).
        return read(primary);
      }
      try {
        if (!(await caughtUp(replica, position))) {
          replica.state = 'behind';
          replica.restUntil = Date.now() + restMs;
          replica.skipped += 1;
          return read(primary);
        }
        const answer = await read(replica.db);
        replica.state = 'up';
        replica.served += 1;
        delete replica.error;
        return answer;
      } catch (error) {
        // A refusal of the read itself (a bad cursor, an unknown template) is the answer: the
        // primary would say the same. A replica that cannot answer, or cancels a read in conflict
        // with its replay, hands the read to the primary.
        if (!isStoreUnavailable(error) && !isTransientConflict(error)) throw error;
        replica.state = 'down';
        replica.error = error instanceof Error ? error.message : String(error);
        replica.restUntil = Date.now() + restMs;
        replica.skipped += 1;
        return read(primary);
      }
    },
    states: () =>
      replicas.map((r) => ({
        name: r.name,
        state: r.state,
        served: r.served,
        skipped: r.skipped,
        lagBytes: r.lagBytes,
        ...(r.error ? { error: r.error } : {}),
      })),
    async close() {
      await Promise.all(replicas.map((r) => r.db.destroy()));
    },
  };
}
