import {
  type AliasedRawBuilder,
  type CompiledQuery,
  type QueryResult,
  type RawBuilder,
  sql,
} from 'kysely';
import { type Executor, isPostgres, type Trx } from './db.js';
import {
  idArrayType,
  knownTypes,
  logTimeArrayType,
  subjectTimeArrayType,
  timeArrayType,
} from './id-type.js';
import { prepared } from './prepared.js';

/**
 * The PostgreSQL array types a column of a batch statement may take: `id` for the service's
 * ids (and the tenant's), typed as the store's id columns are, `decision-time` for the
 * decisions' times, `log-leaf` and `log-time` for the log's entries' leaf hashes (given as
 * hex) and times, `subject-lookup` for the subjects' look-ups (given as hex), `subject-time` for
 * the subjects' times, and `sealed` for the sealed columns (given as base64), each typed as its
 * columns are (`id-type.ts`).
 */
export type UnnestType =
  | 'text'
  | 'integer'
  | 'id'
  | 'decision-time'
  | 'log-leaf'
  | 'log-time'
  | 'subject-time'
  | 'subject-lookup'
  | 'sealed';

/** A query builder or raw SQL: either compiles for an executor. */
interface Compiles<O> {
  compile(db: Executor): CompiledQuery<O>;
}

/** A PostgreSQL statement over a batch's rows (`batchStatement`). */
export interface BatchStatement<C extends string, O> {
  run(db: Executor, rows: readonly Partial<Record<C, unknown>>[]): Promise<QueryResult<O>>;
}

/**
 * PostgreSQL: a set-based statement over a batch's rows (`insert … select`, `… join`), the rows
 * as a table with one array parameter per column
 * (`select * from unnest($1::text[], $2::integer[]) as rows(a, b)`): a batch of any size is one
 * statement with as many parameters as columns, and sends nothing back per row. `build` gets
 * that table and runs once (`prepared.ts`); each run passes the batch's columns as the arrays.
 * The server plans it on each run: a plan kept for any arrays is made without their sizes, and
 * cost these statements twice as much (bench/notebook.md, 2026-12-01, 22:50). Sent unnamed, it
 * is also parsed on each run; `writePath` statements are prepared on each connection instead,
 * parsed once there, and planned on each run by the write path's transaction (`planEachRun`).
 */
export function batchStatement<C extends string, O>(
  columns: Readonly<Record<C, UnnestType>>,
  build: (db: Executor, rows: RawBuilder<Record<C, never>>) => Compiles<O>,
  {
    writePath = false,
  }: {
    /**
     * Run by the write path's batches (src/write-path), whose transaction plans each run
     * (`planEachRun`). Run elsewhere, it must be one whose every plan is the same, whatever the
     * arrays hold (an insert from the rows), as the server may keep one after five runs.
     */
    writePath?: boolean;
  } = {},
): BatchStatement<C, O> {
  const names = Object.keys(columns) as C[];
  const query = prepared(
    (db, param: (name: C) => never) => {
      const arrays = names.map((name) => {
        const type = columns[name];
        if (type === 'id') return sql`${param(name)}::${idArrayType(db)}`;
        if (type === 'decision-time') return sql`${param(name)}::${timeArrayType(db)}`;
        if (type === 'log-leaf') return encodedArray(param(name), 'hex', knownTypes(db)?.log.leaf);
        if (type === 'subject-lookup')
          return encodedArray(param(name), 'hex', knownTypes(db)?.lookup);
        if (type === 'sealed') return encodedArray(param(name), 'base64', knownTypes(db)?.sealed);
        if (type === 'log-time') return sql`${param(name)}::${logTimeArrayType(db)}`;
        if (type === 'subject-time') return sql`${param(name)}::${subjectTimeArrayType(db)}`;
        return sql`${param(name)}::${sql.raw(type)}[]`;
      });
      const rows = sql<Record<C, never>>`select * from unnest(${sql.join(
        arrays,
      )}) as rows(${sql.join(names.map((name) => sql.id(name)))})`;
      const built = build(db, rows);
      return { compile: () => built.compile(db) };
    },
    { onServer: writePath },
  );
  return {
    run(db, rows) {
      const values = {} as Record<C, unknown[]>;
      for (const name of names) values[name] = rows.map((row) => row[name] ?? null);
      return query.run(db, values);
    },
  };
}

/**
 * The write path's transaction (src/write-path): on PostgreSQL every statement it prepares is
 * planned on each run, for that run's arrays and values, as its unnamed statements are. Its
 * prepared batch statements (`writePath`) then save their parsing and nothing else: a plan the
 * server kept could be one made on a nearly empty store, the worse one once it has grown
 * (bench/notebook.md, 2026-12-07, 01:01).
 */
export async function planEachRun(trx: Trx): Promise<void> {
  if (!isPostgres(trx)) return;
  await sql`select set_config('plan_cache_mode', 'force_custom_plan', true)`.execute(trx);
}

/**
 * A batch's bytes given as text (hashes and look-ups as hex, sealed values as base64), as their
 * column keeps them: as they are in a `text` column, decoded in the statement for a `bytea` one
 * (in the batch's order).
 */
function encodedArray(
  param: never,
  encoding: 'hex' | 'base64',
  columnType: 'text' | 'bytea' | undefined,
): RawBuilder<unknown> {
  return columnType === 'bytea'
    ? sql`array(select decode(v, ${sql.lit(encoding)}) from unnest(${param}::text[])
        with ordinality as u(v, i) order by i)`
    : sql`${param}::text[]`;
}

/** A batch's rows as a table to select from: `(select * from unnest(…) as rows(…)) as alias`. */
export function rowsAs<C extends string, A extends string>(
  rows: RawBuilder<Record<C, never>>,
  alias: A,
): AliasedRawBuilder<Record<C, never>, A> {
  return sql<Record<C, never>>`(${rows})`.as(alias);
}

/**
 * A batch of look-ups whose statement selects each one's position in the batch (`i`, a column
 * of the statement's rows): the answers in the order asked.
 */
export async function answersInOrder<O extends { i: number }>(
  statement: BatchStatement<'i', O>,
  db: Executor,
  queries: readonly object[],
): Promise<Omit<O, 'i'>[]> {
  const { rows } = await statement.run(
    db,
    queries.map((query, i) => ({ ...query, i })),
  );
  const byPosition: Omit<O, 'i'>[] = [];
  for (const { i, ...answer } of rows) byPosition[i] = answer;
  return byPosition;
}
