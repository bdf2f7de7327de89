// What a store takes on disk, table by table with its indexes: SQLite's `dbstat` (every page of
// the file, the WAL's newer pages included), PostgreSQL's relation sizes (heap, TOAST and free
// space maps; each index on its own), in the database's public schema. Used by bench/main.ts for
// the bytes a decision takes at rest and the bytes each decision the service records adds.
import { closeSync, openSync, readSync } from 'node:fs';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import type { Endpoint, Store } from './config.js';

/** Bytes per table, its indexes added to it, and the records the store holds of each kind. */
export interface StoreBytes {
  total: number;
  tables: Map<string, number>;
  /** Each table and index by its own name. */
  objects: Map<string, number>;
  counts: RecordCounts;
}

/** The records a run adds, whose bytes each are measured: decisions, cookie choices, channel changes. */
export interface RecordCounts {
  decisions: number;
  cookieChoices: number;
  channelChanges: number;
}

/** The endpoints whose runs add records, and which: their bytes each are measured. */
export const recordsOf: Partial<Record<Endpoint, keyof RecordCounts>> = {
  decisions: 'decisions',
  'cookie-choices': 'cookieChoices',
  'channel-changes': 'channelChanges',
};

/** What each count is, in a note ("2.95 KB a decision"). */
const countNames: Record<keyof RecordCounts, string> = {
  decisions: 'a decision',
  cookieChoices: 'a cookie choice',
  channelChanges: 'a channel change',
};

/**
 * The tables and indexes `pending` reads, whose pages must stay in memory for it to answer from
 * memory (docs/scaling.md, "PostgreSQL's memory"). On PostgreSQL two indexes, both read
 * index-only (migration 0049); on SQLite the customers' look-up index, which holds the subject's
 * id, and the states, kept in their key's order (migration 0050).
 */
const pendingReads: Record<Store, readonly string[]> = {
  postgres: ['subjects_lookup_uq', 'customer_version_states_pk'],
  sqlite: ['subjects_lookup_uq', 'customer_version_states'],
};

/**
 * What the other reads of a stored customer read besides: history the customer's row, their
 * standings and their decisions in time order with the decisions' rows; bulk status the
 * decisions' key for the history (`decisions_history_uq`, SQLite's second autoindex) and by id,
 * with their rows. The small tables (templates, versions) are left out.
 */
const otherReads: Partial<Record<Endpoint, Record<Store, readonly string[]>>> = {
  history: {
    postgres: [
      'subjects',
      'customer_template_states',
      'customer_template_states_pk',
      'decisions',
      'decisions_customer_time_idx',
    ],
    sqlite: ['subjects', 'customer_template_states', 'decisions', 'decisions_customer_time_idx'],
  },
  'bulk-status': {
    // PostgreSQL takes each decision where the walk finds it; SQLite looks it up again by id.
    postgres: ['decisions_history_uq', 'decisions'],
    sqlite: ['sqlite_autoindex_decisions_2', 'sqlite_autoindex_decisions_1', 'decisions'],
  },
};

/**
 * What is read once before a stored size's runs (`BENCH_HOT_SET`): `pending`'s reads, and with
 * `reads` those of every other read endpoint of the run too.
 */
export function hotSetObjects(
  store: Store,
  mode: 'read' | 'reads',
  endpoints: readonly Endpoint[],
): string[] {
  const names = new Set(pendingReads[store]);
  if (mode === 'reads') {
    for (const endpoint of endpoints)
      for (const name of otherReads[endpoint]?.[store] ?? []) names.add(name);
  }
  return [...names];
}

/** The bytes of what `pending` reads (`pendingReads`), and each object's share. */
export function pendingHotSet(
  store: Store,
  bytes: StoreBytes,
): { total: number; objects: Array<[string, number]> } {
  const objects = pendingReads[store].map(
    (name) => [name, bytes.objects.get(name) ?? 0] as [string, number],
  );
  return { total: objects.reduce((sum, [, b]) => sum + b, 0), objects };
}

/**
 * Reads every page of the tables and indexes named (`hotSetObjects`) once, as a server that has
 * served for a while holds them: a run right after a bulk load otherwise measures first reads from
 * disk, which take most of a short run at 10 million. SQLite's pages are read from the file where
 * `dbstat` places them, into the kernel's cache; PostgreSQL's by `pg_prewarm(…, 'buffer')`, into
 * the kernel's cache and into `shared_buffers` as far as they hold them (all of them when the
 * buffers are sized for the hot set, as docs/scaling.md tells an operator to). Answers the bytes
 * read.
 */
export async function readHotSet(
  store: Store,
  url: string,
  names: readonly string[],
): Promise<number> {
  return store === 'sqlite' ? readSqliteHotSet(url, names) : readPostgresHotSet(url, names);
}

function readSqliteHotSet(path: string, names: readonly string[]): number {
  const db = new SQLite(path, { readonly: true });
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const pages: number[] = [];
  try {
    const query = db.prepare('select pageno from dbstat where name = ?').pluck();
    const exists = db.prepare('select 1 from sqlite_schema where name = ?').pluck();
    for (const name of names) {
      // dbstat answers nothing for a name it does not know; PostgreSQL's regclass refuses one.
      if (!exists.get(name)) throw new Error(`the hot set names no such object: ${name}`);
      for (const page of query.iterate(name) as Iterable<number>) pages.push(page);
    }
  } finally {
    db.close();
  }
  pages.sort((a, b) => a - b);
  const fd = openSync(path, 'r');
  const chunk = Buffer.alloc(1 << 20);
  try {
    // Runs of adjacent pages are read together, up to a chunk at a time.
    for (let i = 0; i < pages.length; ) {
      let j = i + 1;
      while (
        j < pages.length &&
        pages[j] === (pages[j - 1] ?? 0) + 1 &&
        (j - i + 1) * pageSize <= chunk.length
      ) {
        j++;
      }
      readSync(fd, chunk, 0, (j - i) * pageSize, ((pages[i] ?? 1) - 1) * pageSize);
      i = j;
    }
  } finally {
    closeSync(fd);
  }
  return pages.length * pageSize;
}

async function readPostgresHotSet(url: string, names: readonly string[]): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('create extension if not exists pg_prewarm');
    const blockSize = Number(
      (await client.query<{ b: string }>(`select current_setting('block_size') as b`)).rows[0]?.b,
    );
    let blocks = 0;
    for (const name of names) {
      // A partitioned table or index (`BENCH_PARTITION`) has no pages: its partitions do.
      const { rows } = await client.query<{ n: string }>(
        `select coalesce(sum(pg_prewarm(c.oid, 'buffer')), 0)::text as n from pg_class c
         where (c.oid = $1::regclass and c.relkind not in ('p', 'I'))
           or c.oid in (select relid from pg_partition_tree($1::regclass) where isleaf)`,
        [name],
      );
      blocks += Number(rows[0]?.n ?? 0);
    }
    return blocks * blockSize;
  } finally {
    await client.end();
  }
}

/** A line for the notes: the hot set's size in all and a decision. */
export function describeHotSet(store: Store, bytes: StoreBytes): string {
  const { total, objects } = pendingHotSet(store, bytes);
  const each = objects.map(([name, b]) => `${name} ${megabytes(b)}`).join(', ');
  return `${megabytes(total)}, ${Math.round(total / Math.max(bytes.counts.decisions, 1))} B a decision (${each})`;
}

function megabytes(bytes: number): string {
  return `${(bytes / 1_048_576).toFixed(1)} MB`;
}

export async function storeBytes(store: Store, url: string): Promise<StoreBytes> {
  return store === 'sqlite' ? sqliteBytes(url) : postgresBytes(url);
}

function sqliteBytes(path: string): StoreBytes {
  const db = new SQLite(path, { readonly: true });
  try {
    // An index's pages count for its table (`sqlite_schema` names which).
    const owners = new Map(
      (
        db
          .prepare(`select name, tbl_name from sqlite_schema where type in ('table', 'index')`)
          .all() as Array<{
          name: string;
          tbl_name: string;
        }>
      ).map((row) => [row.name, row.tbl_name]),
    );
    const rows = db
      .prepare('select name, sum(pgsize) as bytes from dbstat group by name')
      .all() as Array<{ name: string; bytes: number }>;
    const count = (table: string) =>
      (db.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
    const counts = {
      decisions: count('decisions'),
      cookieChoices: count('cookie_decisions'),
      channelChanges: count('channel_changes'),
    };
    return grouped(
      rows.map((row) => ({
        name: row.name,
        table: owners.get(row.name) ?? row.name,
        bytes: row.bytes,
      })),
      counts,
    );
  } finally {
    db.close();
  }
}

async function postgresBytes(url: string): Promise<StoreBytes> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string; table: string; bytes: string }>(
      // A partition's bytes count as its parent table's (`BENCH_PARTITION`).
      `select c.relname as name, coalesce(p.relname, t.relname, c.relname) as table,
         (case when c.relkind = 'i' then pg_relation_size(c.oid) else pg_table_size(c.oid) end)::text as bytes
       from pg_class c
       join pg_namespace n on n.oid = c.relnamespace
       left join pg_index i on i.indexrelid = c.oid
       left join pg_class t on t.oid = i.indrelid
       left join pg_inherits h on h.inhrelid = coalesce(t.oid, c.oid)
       left join pg_class p on p.oid = h.inhparent
       where n.nspname = 'public' and c.relkind in ('r', 'i', 'm')`,
    );
    const counted = await client.query<{ decisions: string; choices: string; changes: string }>(
      `select (select count(*) from decisions)::text as decisions,
        (select count(*) from cookie_decisions)::text as choices,
        (select count(*) from channel_changes)::text as changes`,
    );
    const counts = {
      decisions: Number(counted.rows[0]?.decisions ?? 0),
      cookieChoices: Number(counted.rows[0]?.choices ?? 0),
      channelChanges: Number(counted.rows[0]?.changes ?? 0),
    };
    return grouped(
      rows.map((row) => ({ name: row.name, table: row.table, bytes: Number(row.bytes) })),
      counts,
    );
  } finally {
    await client.end();
  }
}

function grouped(
  rows: Array<{ name: string; table: string; bytes: number }>,
  counts: RecordCounts,
): StoreBytes {
  const tables = new Map<string, number>();
  const objects = new Map<string, number>();
  let total = 0;
  for (const { name, table, bytes } of rows) {
    tables.set(table, (tables.get(table) ?? 0) + bytes);
    objects.set(name, bytes);
    total += bytes;
  }
  return { total, tables, objects, counts };
}

/** `after` less `before`, per record of `kind` the store gained between them, largest first. */
export function bytesPerRecord(
  before: StoreBytes,
  after: StoreBytes,
  kind: keyof RecordCounts,
): { perRecord: number; tables: Array<[string, number]> } | undefined {
  const gained = after.counts[kind] - before.counts[kind];
  if (gained <= 0) return undefined;
  const tables = [...after.tables]
    .map(
      ([name, bytes]) =>
        [name, (bytes - (before.tables.get(name) ?? 0)) / gained] as [string, number],
    )
    .filter(([, bytes]) => bytes > 0)
    .sort((a, b) => b[1] - a[1]);
  return { perRecord: (after.total - before.total) / gained, tables };
}

/**
 * A line for the notes: the total a record and the tables that take the most of it (eight:
 * the journal's queue and the log's nodes, small beside the rows, are named too).
 */
export function describeBytes(
  perRecord: number,
  tables: ReadonlyArray<[string, number]>,
  kind: keyof RecordCounts,
): string {
  const top = tables
    .slice(0, 8)
    .map(([name, bytes]) => `${name} ${Math.round(bytes)} B`)
    .join(', ');
  return `${(perRecord / 1024).toFixed(2)} KB ${countNames[kind]} (${top})`;
}
