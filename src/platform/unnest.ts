import { type AliasedRawBuilder, type RawBuilder, sql } from 'kysely';

/** The PostgreSQL array types a column of `unnestParams` may take. */
export type UnnestType = 'text' | 'integer';

/**
 * PostgreSQL: a batch's rows as a table, one array parameter per column
 * (`select * from unnest($1::text[], $2::integer[]) as rows(a, b)`), for set-based statements
 * (`insert … select`, `… join`). A batch of any size is one statement with as many parameters
 * as columns, and sends nothing back per row. Made for a statement compiled once
 * (`prepared(…, { onServer: false })`, prepared.ts): each column's array is the value named
 * after the column, which `unnestValues` makes from the batch's rows.
 */
export function unnestParams<C extends string>(
  columns: Readonly<Record<C, UnnestType>>,
  param: (name: C) => never,
): RawBuilder<Record<C, never>> {
  const names = Object.keys(columns) as C[];
  const arrays = names.map((name) => sql`${param(name)}::${sql.raw(columns[name])}[]`);
  return sql<Record<C, never>>`select * from unnest(${sql.join(arrays)}) as rows(${sql.join(
    names.map((name) => sql.id(name)),
  )})`;
}

/** `unnestParams` as a table to select from: `(select * from unnest(…) as rows(…)) as alias`. */
export function unnestParamsTable<C extends string, A extends string>(
  columns: Readonly<Record<C, UnnestType>>,
  param: (name: C) => never,
  alias: A,
): AliasedRawBuilder<Record<C, never>, A> {
  return sql<Record<C, never>>`(${unnestParams(columns, param)})`.as(alias);
}

/** A batch's rows as the values of an `unnestParams` statement: one array a column. */
export function unnestValues<R extends object, C extends keyof R & string>(
  rows: readonly R[],
  columns: Readonly<Record<C, UnnestType>>,
): Record<C, unknown[]> {
  const values = {} as Record<C, unknown[]>;
  for (const name of Object.keys(columns) as C[]) {
    values[name] = rows.map((row) => row[name] ?? null);
  }
  return values;
}
