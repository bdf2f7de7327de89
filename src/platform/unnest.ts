import { type AliasedRawBuilder, type RawBuilder, sql } from 'kysely';

/** The PostgreSQL array types a column of `unnestRows` may take. */
export type UnnestType = 'text' | 'integer';

/**
 * PostgreSQL: rows as a table, one array parameter per column
 * (`select * from unnest($1::text[], $2::integer[]) as rows(a, b)`), for set-based statements
 * (`insert … select`, `… join`). A batch of any size is one statement with as many parameters
 * as columns: the server parses and plans it once, and sends nothing back per row.
 */
export function unnestRows<R extends object, C extends keyof R & string>(
  rows: readonly R[],
  columns: Readonly<Record<C, UnnestType>>,
): RawBuilder<Pick<R, C>> {
  const names = Object.keys(columns) as C[];
  const arrays = names.map(
    (name) => sql`${rows.map((row) => row[name] ?? null)}::${sql.raw(columns[name])}[]`,
  );
  return sql<Pick<R, C>>`select * from unnest(${sql.join(arrays)}) as rows(${sql.join(
    names.map((name) => sql.id(name)),
  )})`;
}

/** `unnestRows` as a table to select from: `(select * from unnest(…) as rows(…)) as alias`. */
export function unnestTable<R extends object, C extends keyof R & string, A extends string>(
  rows: readonly R[],
  columns: Readonly<Record<C, UnnestType>>,
  alias: A,
): AliasedRawBuilder<Pick<R, C>, A> {
  return sql<Pick<R, C>>`(${unnestRows(rows, columns)})`.as(alias);
}
