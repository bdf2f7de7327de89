import pg from 'pg';
import { startPostgresServer } from '../test/helpers/postgres-server.js';
import { type Cores, parentPid, pinTree, serverCore, unpinnedReason } from './processes.js';

export interface BenchPostgres {
  /** A superuser (or CREATEDB) URL; each data size gets a database of its own on it. */
  adminUrl: string;
  /** What was done about core pinning, for the output. */
  pinning: string;
  /** The embedded server's postmaster, to count the database's CPU; null for an external one. */
  postmasterPid: number | null;
  /** Moves the embedded server to other cores (the workers group); says what was done. */
  pin(cores: Cores): string;
  remove(): Promise<void>;
}

/**
 * Durable commits, as a production server makes them: the test servers' helper turns the disk
 * flushes off (`fsync=off`, `full_page_writes=off`: nothing on them must outlive a power cut),
 * and a later `-c` of the same setting wins. Without them a commit costs no flush, so the
 * decisions' group commit and the INSERT loop's one commit a row would be compared on a server
 * no operator runs. `BENCH_POSTGRES_SETTINGS=fsync=off,full_page_writes=off` measures that one.
 */
const durableSettings = ['fsync=on', 'full_page_writes=on'] as const;

/**
 * BENCH_DATABASE_URL's server as it is, or a private embedded one with these settings (after
 * `durableSettings`, so that they can undo them), pinned to the server core.
 */
export async function startBenchPostgres(
  url: string | undefined,
  settings: readonly string[],
): Promise<BenchPostgres> {
  if (url) {
    return {
      adminUrl: url,
      pinning: 'not pinned (BENCH_DATABASE_URL)',
      postmasterPid: null,
      pin: () => 'not pinned (BENCH_DATABASE_URL)',
      remove: async () => {},
    };
  }
  const server = await startPostgresServer({ settings: [...durableSettings, ...settings] });
  try {
    const postmasterPid = await findPostmaster(server.url);
    return {
      adminUrl: server.url,
      pinning: pin(postmasterPid, serverCore),
      postmasterPid,
      pin: (cores) => pin(postmasterPid, cores),
      remove: () => bounded(server.remove(), 90_000),
    };
  } catch (error) {
    await server.remove();
    throw error;
  }
}

/**
 * The helper starts PostgreSQL from a child process we cannot wrap in taskset, so the running
 * postmaster (a backend's parent) and its workers are pinned afterwards; backends forked for
 * later connections inherit the postmaster's affinity.
 */
function pin(postmaster: number | null, cores: Cores): string {
  if (unpinnedReason) return `not pinned (${unpinnedReason})`;
  if (!postmaster) return 'not pinned (postmaster not found)';
  const pinned = pinTree(postmaster, cores);
  const where = typeof cores === 'number' ? `core ${cores}` : `cores ${cores}`;
  return `postmaster ${postmaster} and ${pinned - 1} workers pinned to ${where}`;
}

/** A backend's parent is the postmaster; read while the backend still lives. */
async function findPostmaster(url: string): Promise<number | null> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
    return parentPid(rows[0]?.pid ?? 0);
  } finally {
    await client.end();
  }
}

/**
 * The helper's remove() waits for its child's exit event, which never comes again if the child was
 * already killed by a signal (say, a Ctrl-C reaching the whole process group): do not hang on it.
 */
function bounded(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** How the server commits, for the output: the three settings a commit's durability is made of. */
export async function durability(url: string): Promise<string> {
  const rows = await query<{ name: string; setting: string }>(
    url,
    "select name, setting from pg_settings where name in ('fsync', 'full_page_writes', 'synchronous_commit') order by name",
  );
  return rows.map((r) => `${r.name}=${r.setting}`).join(', ');
}

export async function query<T>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

export function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function recreateDatabase(adminUrl: string, name: string): Promise<string> {
  await query(adminUrl, `drop database if exists ${name} with (force)`);
  await query(adminUrl, `create database ${name}`);
  return databaseUrl(adminUrl, name);
}

export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  await query(adminUrl, `drop database if exists ${name} with (force)`);
}
