import { type RawBuilder, sql } from 'kysely';

/**
 * Whether the column contains `text`, in any case, on SQLite and PostgreSQL alike: `%`, `_` and
 * the escape character itself match only themselves.
 */
export function containsText(column: string, text: string): RawBuilder<boolean> {
  const pattern = `%${text.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`;
  return sql<boolean>`lower(${sql.ref(column)}) like ${pattern} escape '!'`;
}
