import type { Compilable, CompiledQuery, QueryResult } from 'kysely';
import { type Executor, isPostgres } from './db.js';
import { knownIdType, knownTypesKey, resolveIdType } from './id-type.js';
import { prepareOnServer } from './postgres.js';

const marker = '\u0000prepared:';

/** A query Kysely built and compiled once, run with new values each time. */
export interface PreparedQuery<K extends string, O> {
  run(db: Executor, values: Readonly<Record<K, unknown>>): Promise<QueryResult<O>>;
  /** The statement with this run's values, for `db`'s dialect: to run elsewhere (a reader thread). */
  bind(db: Executor, values: Readonly<Record<K, unknown>>): CompiledQuery<O>;
  /** The first row, or undefined. */
  first(db: Executor, values: Readonly<Record<K, unknown>>): Promise<O | undefined>;
}

/**
 * For the statements every request runs: building a query and compiling it to SQL each time
 * costs more than the store needs to run these small indexed statements (bench/notebook.md,
 * "2026-11-21: what was cut"). The builder runs once per dialect, with a stand-in for each named value
 * (`param('tenantId')`); each run swaps the stand-ins in the compiled parameters for that run's
 * values. The query's shape must therefore not depend on the values: every value is a
 * parameter, and absent ones are `null`.
 * On PostgreSQL each connection also prepares the statement on the server once.
 */
export function prepared<K extends string, O>(
  build: (db: Executor, param: (name: K) => never) => Compilable<O>,
  /**
   * `false` for a statement PostgreSQL is to plan on each run: a batch's (`batchStatement`,
   * unnest.ts).
   */
  { onServer = true }: { onServer?: boolean } = {},
): PreparedQuery<K, O> {
  // By dialect and, on PostgreSQL, the store's id and time types (id-type.ts): a batch's arrays
  // of ids and of decision times are typed as its columns are.
  const compiled = new Map<string, CompiledQuery<O>>();
  const param = (name: K) => `${marker}${name}` as never;

  function compiledFor(db: Executor): CompiledQuery<O> {
    const postgres = isPostgres(db);
    const key = knownTypesKey(db) ?? 'text text';
    let query = compiled.get(key);
    if (!query) {
      query = build(db, param).compile();
      compiled.set(key, query);
      // PostgreSQL also skips parsing and planning it on each run.
      if (postgres && onServer) prepareOnServer(query.sql);
    }
    return query;
  }

  function bind(db: Executor, values: Readonly<Record<K, unknown>>): CompiledQuery<O> {
    const query = compiledFor(db);
    const parameters = query.parameters.map((parameter) => {
      if (typeof parameter !== 'string' || !parameter.startsWith(marker)) return parameter;
      const value = values[parameter.slice(marker.length) as K];
      if (value === undefined) throw new Error(`No value for ${parameter.slice(marker.length)}`);
      return value;
    });
    return { ...query, parameters };
  }

  function run(db: Executor, values: Readonly<Record<K, unknown>>): Promise<QueryResult<O>> {
    // A store's first statement reads its id type first, once.
    if (knownIdType(db) === undefined) {
      return resolveIdType(db).then(() => db.executeQuery(bind(db, values)));
    }
    return db.executeQuery(bind(db, values));
  }

  return {
    run,
    bind,
    first: async (db, values) => (await run(db, values)).rows[0],
  };
}

/** A row of stand-ins, one per column, for an insert that names every column of a table. */
export function paramRow<C extends string>(
  columns: readonly C[],
  param: (name: C) => never,
): Record<C, never> {
  return Object.fromEntries(columns.map((column) => [column, param(column)])) as Record<C, never>;
}
