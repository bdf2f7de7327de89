import { type RawBuilder, sql } from 'kysely';

/**
 * Whether the column contains `text`, in any case, on SQLite and PostgreSQL alike: `%`, `_` and
 * the escape character itself match only themselves.
 */
export function containsText(
  column: string | RawBuilder<unknown>,
  text: string,
): RawBuilder<boolean> {
  return likePattern(column, `%${escaped(text)}%`);
}

/** Whether the column starts with `text`, in any case; `%` and `_` match only themselves. */
export function startsWithText(column: string, text: string): RawBuilder<boolean> {
  return likePattern(column, `${escaped(text)}%`);
}

const escaped = (text: string) => text.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`);

function likePattern(column: string | RawBuilder<unknown>, pattern: string): RawBuilder<boolean> {
  const value = typeof column === 'string' ? sql.ref(column) : column;
  return sql<boolean>`lower(${value}) like ${pattern} escape '!'`;
}
