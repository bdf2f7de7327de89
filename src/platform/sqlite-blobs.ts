/**
 * Bytes a SQLite column holds as a blob, read in the text form the service works with. Reading
 * a blob into JavaScript costs better-sqlite3 a `Buffer` each, about 1 µs, and so does handing
 * one to a function of the connection's; its `hex()` in the statement costs next to nothing
 * (bench/notebook.md, "what binary values cost to read on SQLite"). So a statement gives each
 * blob as marked text: a character no base64 or UUID holds, a letter for the form wanted, then
 * its hex. The statements of every connection (`sqlite-statements.ts`: the main one's, the
 * reader threads') turn each marked value of a marked statement's rows into that form, whatever
 * its column; a value without the mark is left as it is, so a column holding text in some rows
 * and bytes in others reads alike.
 */

/**
 * What a statement puts before a blob's hex for it to be read as base64 (`\u0001b`), as SQL:
 * `case typeof(c) when 'blob' then <mark> || hex(c) else c end` reads a column of base64
 * values whether each is held as text or as a blob (`sealedColumn`, id-type.ts).
 */
export const sqliteBase64Mark = 'char(1, 98)';

/** Whether a statement's rows may hold marked values: checked once, when it is prepared. */
export function readsMarkedBlobs(sql: string): boolean {
  return sql.includes(sqliteBase64Mark);
}

/** Each marked value of a row in the form its mark names, in place; the row given back. */
export function unmarkRow<T>(row: T): T {
  const values = row as Record<string, unknown>;
  for (const key in values) {
    const value = values[key];
    if (typeof value === 'string' && value.charCodeAt(0) === 1) values[key] = unmark(value);
  }
  return row;
}

function unmark(value: string): string {
  if (value[1] === 'b') return Buffer.from(value.slice(2), 'hex').toString('base64');
  throw new Error(`a blob read with an unknown mark: ${JSON.stringify(value.slice(0, 2))}`);
}
