/**
 * Partitions by time on PostgreSQL, for the append-only tables that grow without bound (each
 * kind's records that declare a `timeColumn`, and the log's leaves): a table becomes a parent
 * partitioned by range on its time column, one partition a month or a year, so that vacuum,
 * backups and any retention an operator is allowed work on one closed partition at a time
 * (docs/postgresql.md, "Partitions by time").
 *
 * - `partitionByTime` turns the tables into partitioned ones once (`store partition`), with their
 *   rows, indexes and grants; the service should be stopped, since each table is locked while
 *   its rows are copied.
 * - `keepPartitionsAhead` makes the partitions of this interval and the next two before a record
 *   needs them; every instance runs it (one at a time), at start and every hour. A record whose
 *   time has no partition yet lands in the table's default partition, and moves into its own
 *   once it is made.
 *
 * What PostgreSQL asks of a partitioned table: a unique index must hold the time column. The
 * primary key gains it (`decisions`' `(id)` becomes `(id, decided_at)`); another unique
 * index that does not hold it becomes a plain one, its uniqueness kept by the writers' locks (the
 * subject's, and each kind's own: `lockKeys`), which already decide it before any insert.
 *
 * SQLite keeps each table whole: these functions refuse it (`partitionByTime`) or do nothing.
 */
import { sql } from 'kysely';
import { type Db, type Executor, isPostgres, type Trx } from './db.js';
import { tryLockKey } from './locks.js';
import { isoFromTimestamptz } from './postgres.js';

export type PartitionInterval = 'month' | 'year';
export const partitionIntervals: readonly PartitionInterval[] = ['month', 'year'];

/** An append-only table and the column that dates its rows (an ISO 8601 time in UTC). */
export interface TimeTable {
  table: string;
  column: string;
}

/** A partition: its name and the times it holds, `from` included, `to` not. */
export interface PartitionRange {
  name: string;
  from: string;
  to: string;
}

/** Partitions made ahead of the one that holds now. */
export const partitionsAhead = 2;
/** How often each instance makes sure the partitions ahead exist. */
export const partitionCheckIntervalMs = 60 * 60 * 1000;

/** The start of the interval that holds `at` (UTC). */
function intervalStart(at: Date, interval: PartitionInterval): Date {
  return interval === 'year'
    ? new Date(Date.UTC(at.getUTCFullYear(), 0, 1))
    : new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
}

function nextStart(start: Date, interval: PartitionInterval): Date {
  return interval === 'year'
    ? new Date(Date.UTC(start.getUTCFullYear() + 1, 0, 1))
    : new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
}

/** The partition of `table` that holds the interval starting at `start`. */
export function partitionOf(
  table: string,
  start: Date,
  interval: PartitionInterval,
): PartitionRange {
  const year = String(start.getUTCFullYear()).padStart(4, '0');
  const month = String(start.getUTCMonth() + 1).padStart(2, '0');
  return {
    name: interval === 'year' ? `${table}_p${year}` : `${table}_p${year}_${month}`,
    // The stored times' own format, so that the bounds compare as the times do.
    from: start.toISOString(),
    to: nextStart(start, interval).toISOString(),
  };
}

/** The partitions from the one holding `first` to `partitionsAhead` past the one holding `now`. */
export function partitionsFor(
  table: string,
  first: Date,
  now: Date,
  interval: PartitionInterval,
): PartitionRange[] {
  let last = intervalStart(now, interval);
  for (let i = 0; i < partitionsAhead; i += 1) last = nextStart(last, interval);
  const ranges: PartitionRange[] = [];
  const from = intervalStart(first.getTime() < now.getTime() ? first : now, interval);
  for (let at = from; at.getTime() <= last.getTime(); at = nextStart(at, interval)) {
    ranges.push(partitionOf(table, at, interval));
  }
  return ranges;
}

/** The partition that takes a row whose time has no partition of its own. */
export const defaultPartition = (table: string) => `${table}_pdefault`;

/**
 * The interval a partitioned table's partitions span, read from their names (`partitionOf`):
 * the tables themselves say it, so no setting can disagree with them.
 */
function intervalOf(table: string, partitions: readonly string[]): PartitionInterval | undefined {
  const month = new RegExp(`^${table}_p\\d{4}_\\d{2}$`);
  const year = new RegExp(`^${table}_p\\d{4}$`);
  if (partitions.some((name) => month.test(name))) return 'month';
  if (partitions.some((name) => year.test(name))) return 'year';
  return undefined;
}

/** An identifier, quoted for a statement PostgreSQL takes as text. */
const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** What `partitionByTime` did to one table. */
export interface PartitionedTable {
  table: string;
  column: string;
  /** False when the table was partitioned already (nothing done). */
  converted: boolean;
  rows: number;
  partitions: string[];
}

/** The interval the first partitioned table of `tables` is split by; undefined when none is. */
async function partitionedInterval(
  db: Executor,
  tables: readonly TimeTable[],
): Promise<PartitionInterval | undefined> {
  for (const { table } of tables) {
    const interval = intervalOf(table, await partitionNames(db, table));
    if (interval !== undefined) return interval;
  }
  return undefined;
}

/**
 * Partitions each table by its time column: a table at a time, each in a transaction of its own
 * that holds the table's lock while its rows are copied. A table partitioned already is left as
 * it is, so that the command can be run again after one that stopped half-way.
 */
export async function partitionByTime(
  db: Db,
  tables: readonly TimeTable[],
  interval: PartitionInterval,
  now = new Date(),
): Promise<{ interval: PartitionInterval; tables: PartitionedTable[] }> {
  if (!isPostgres(db)) {
    throw new Error(
      'Partitions by time are for a PostgreSQL store; an SQLite store keeps each table whole.',
    );
  }
  const kept = await partitionedInterval(db, tables);
  if (kept !== undefined && kept !== interval) {
    throw new Error(`The store's tables are partitioned by ${kept} already.`);
  }
  const done: PartitionedTable[] = [];
  for (const table of tables) {
    done.push(await db.transaction().execute((trx) => partitionTable(trx, table, interval, now)));
  }
  return { interval, tables: done };
}

async function isPartitioned(db: Executor, table: string): Promise<boolean> {
  const { rows } = await sql<{ relkind: string }>`
    select relkind from pg_class where oid = to_regclass(${table})`.execute(db);
  return rows[0]?.relkind === 'p';
}

async function partitionNames(db: Executor, table: string): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = to_regclass(${table}) order by c.relname`.execute(db);
  return rows.map((row) => row.name);
}

async function partitionTable(
  trx: Trx,
  { table, column }: TimeTable,
  interval: PartitionInterval,
  now: Date,
): Promise<PartitionedTable> {
  await sql`lock table ${sql.table(table)} in access exclusive mode`.execute(trx);
  if (await isPartitioned(trx, table)) {
    return {
      table,
      column,
      converted: false,
      rows: 0,
      partitions: await partitionNames(trx, table),
    };
  }
  const rebuild = await indexesToRebuild(trx, table, column);
  const grants = await grantsOf(trx, table);
  const { rows } = await sql<{ first: string | null; rows: string }>`
    select min(${sql.ref(column)}) as first, count(*) as rows from ${sql.table(table)}`.execute(
    trx,
  );
  const first = new Date(rows[0]?.first ?? now.toISOString());
  const ranges = partitionsFor(table, Number.isNaN(first.getTime()) ? now : first, now, interval);
  const staging = `${table}_by_time`;
  await sql`create table ${sql.table(staging)} (like ${sql.table(table)}
    including defaults including constraints including generated including storage including comments)
    partition by range (${sql.ref(column)})`.execute(trx);
  for (const range of ranges) await createPartition(trx, staging, range);
  await sql`create table ${sql.table(defaultPartition(table))}
    partition of ${sql.table(staging)} default`.execute(trx);
  await sql`insert into ${sql.table(staging)} select * from ${sql.table(table)}`.execute(trx);
  await sql`drop table ${sql.table(table)}`.execute(trx);
  await sql`alter table ${sql.table(staging)} rename to ${sql.table(table)}`.execute(trx);
  // Built once the rows are in, each partition's index in one pass.
  for (const statement of rebuild) await sql.raw(statement).execute(trx);
  for (const statement of grants) await sql.raw(statement).execute(trx);
  await sql`analyze ${sql.table(table)}`.execute(trx);
  return {
    table,
    column,
    converted: true,
    rows: Number(rows[0]?.rows ?? 0),
    partitions: await partitionNames(trx, table),
  };
}

function createPartition(trx: Trx, parent: string, range: PartitionRange) {
  return sql`create table ${sql.table(range.name)} partition of ${sql.table(parent)}
    for values from (${sql.lit(range.from)}) to (${sql.lit(range.to)})`.execute(trx);
}

/**
 * The statements that give the partitioned table the indexes the table had, under the same
 * names: a primary key with the time column added, a unique index without it made plain.
 */
async function indexesToRebuild(trx: Trx, table: string, column: string): Promise<string[]> {
  const { rows } = await sql<{
    name: string;
    definition: string;
    primary: boolean;
    unique: boolean;
    columns: string[];
    constraint: boolean;
  }>`
    select i.relname as name, pg_get_indexdef(x.indexrelid) as definition,
      x.indisprimary as primary, x.indisunique as unique,
      array(select a.attname::text from unnest(x.indkey) with ordinality k(attnum, n)
        join pg_attribute a on a.attrelid = x.indrelid and a.attnum = k.attnum order by k.n) as columns,
      exists (select 1 from pg_constraint c where c.conindid = x.indexrelid) as constraint
    from pg_index x join pg_class i on i.oid = x.indexrelid
    where x.indrelid = to_regclass(${table}) order by i.relname`.execute(trx);
  return rows.map((index) => {
    const holdsTime = index.columns.includes(column);
    const columns = (names: readonly string[]) => names.map(quoted).join(', ');
    if (index.primary) {
      const keys = holdsTime ? index.columns : [...index.columns, column];
      return `alter table ${quoted(table)} add constraint ${quoted(index.name)} primary key (${columns(keys)})`;
    }
    if (index.constraint && index.unique) {
      return holdsTime
        ? `alter table ${quoted(table)} add constraint ${quoted(index.name)} unique (${columns(index.columns)})`
        : `create index ${quoted(index.name)} on ${quoted(table)} (${columns(index.columns)})`;
    }
    return index.unique && !holdsTime
      ? index.definition.replace(/^CREATE UNIQUE INDEX /, 'CREATE INDEX ')
      : index.definition;
  });
}

/** The table's grants to other roles, as statements to give them again. */
async function grantsOf(trx: Trx, table: string): Promise<string[]> {
  const { rows } = await sql<{ grantee: string; privileges: string }>`
    select grantee, string_agg(privilege_type, ', ') as privileges
    from information_schema.role_table_grants
    where table_schema = current_schema() and table_name = ${table} and grantee <> current_user
    group by grantee`.execute(trx);
  return rows.map(
    (row) =>
      `grant ${row.privileges} on table ${quoted(table)} to ${row.grantee === 'PUBLIC' ? 'public' : quoted(row.grantee)}`,
  );
}

/**
 * Makes, for each partitioned table, the partitions from the one holding `now` to
 * `partitionsAhead` past it that do not exist yet: one instance at a time, the others skip.
 * Rows of a new partition's times found in the default partition move into it. Answers the
 * partitions made.
 */
export async function keepPartitionsAhead(
  db: Db,
  tables: readonly TimeTable[],
  now = new Date(),
): Promise<string[]> {
  if (!isPostgres(db)) return [];
  const made: string[] = [];
  for (const { table, column } of tables) {
    const names = await partitionNames(db, table);
    const interval = intervalOf(table, names);
    if (interval === undefined) continue;
    const existing = new Set(names);
    const missing = partitionsFor(table, now, now, interval).filter(
      (range) => !existing.has(range.name),
    );
    for (const range of missing) {
      const created = await db.transaction().execute(async (trx) => {
        if (!(await tryLockKey(trx, 'partitions-ahead'))) return false;
        if ((await partitionNames(trx, table)).includes(range.name)) return false;
        await addPartition(trx, table, column, range);
        return true;
      });
      if (created) made.push(range.name);
    }
  }
  return made;
}

/**
 * A new partition of the table. Rows of its times that landed in the default partition (no
 * partition held them when they were written) would make PostgreSQL refuse it: the default is
 * taken off while the partition is made and they move into it, then put back.
 */
async function addPartition(trx: Trx, table: string, column: string, range: PartitionRange) {
  const fallback = defaultPartition(table);
  const { rows } = await sql<{ found: boolean }>`
    select exists (select 1 from ${sql.table(fallback)} where ${sql.ref(column)} >= ${range.from}
      and ${sql.ref(column)} < ${range.to}) as found`.execute(trx);
  if (!rows[0]?.found) {
    await createPartition(trx, table, range);
    return;
  }
  await sql`alter table ${sql.table(table)} detach partition ${sql.table(fallback)}`.execute(trx);
  await createPartition(trx, table, range);
  await sql`with moved as (delete from ${sql.table(fallback)} where ${sql.ref(column)} >= ${range.from}
      and ${sql.ref(column)} < ${range.to} returning *)
    insert into ${sql.table(table)} select * from moved`.execute(trx);
  await sql`alter table ${sql.table(table)} attach partition ${sql.table(fallback)} default`.execute(
    trx,
  );
}

/** One partitioned table as `store partitions` shows it. */
export interface PartitionState {
  table: string;
  column: string;
  partitioned: boolean;
  partitions: Array<PartitionRange & { rows: number; bytes: number }>;
  /** Rows whose time no partition of its own held when they were written (none, normally). */
  default_rows: number;
}

/** Each table's partitions, their bounds, rows (PostgreSQL's estimate) and bytes on disk. */
export async function partitionStates(
  db: Db,
  tables: readonly TimeTable[],
): Promise<{ interval: PartitionInterval | null; tables: PartitionState[] }> {
  if (!isPostgres(db)) return { interval: null, tables: [] };
  const states: PartitionState[] = [];
  let interval: PartitionInterval | undefined;
  for (const { table, column } of tables) {
    if (!(await isPartitioned(db, table))) {
      states.push({ table, column, partitioned: false, partitions: [], default_rows: 0 });
      continue;
    }
    const { rows } = await sql<{ name: string; bound: string; rows: string; bytes: string }>`
      select c.relname as name, pg_get_expr(c.relpartbound, c.oid) as bound,
        greatest(c.reltuples, 0)::bigint as rows, pg_total_relation_size(c.oid) as bytes
      from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent = to_regclass(${table}) order by c.relname`.execute(db);
    interval ??= intervalOf(
      table,
      rows.map((row) => row.name),
    );
    const { rows: fallback } = await sql<{ rows: string }>`
      select count(*) as rows from ${sql.table(defaultPartition(table))}`.execute(db);
    states.push({
      table,
      column,
      partitioned: true,
      partitions: rows
        .filter((row) => row.name !== defaultPartition(table))
        .map((row) => {
          // A bound of a `timestamptz` column comes in PostgreSQL's form (migration 0061).
          const [from = '', to = ''] = [...row.bound.matchAll(/'([^']*)'/g)].map((m) =>
            isoFromTimestamptz(m[1] ?? ''),
          );
          return { name: row.name, from, to, rows: Number(row.rows), bytes: Number(row.bytes) };
        }),
      default_rows: Number(fallback[0]?.rows ?? 0),
    });
  }
  return { interval: interval ?? null, tables: states };
}
