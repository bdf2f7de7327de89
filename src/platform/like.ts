import { type RawBuilder, sql } from 'kysely';

/**
 * Whether the column contains `text`, in any case, on SQLite and PostgreSQL alike: `%`, `_` and
 * the escape character itself match only themselves.
 */
export function containsText(column: string, text: string): RawBuilder<boolean> {
  return likePattern(column, `%${escaped(text)}%`);
}

/** Whether the column starts with `text`, in any case; `%` and `_` match only themselves. */
export function startsWithText(column: string, text: string): RawBuilder<boolean> {
  return likePattern(column, `${escaped(text)}%`);
}

const escaped = (text: string) => text.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`);

function likePattern(column: string, pattern: string): RawBuilder<boolean> {
  return sql<boolean>`lower(${sql.ref(column)}) like ${pattern} escape '!'`;
}
