/**
 * SQLite's statements prepared once each, for the main connection (`sqlite.ts`) and each reader
 * thread (`reader-loop.ts`). Kysely prepares every query anew; preparing (parsing and planning
 * the SQL) costs more than running these small indexed statements. The queries' text repeats,
 * with only the parameters changing, so each text is prepared once and its statement reused.
 */
import type SQLite from 'better-sqlite3';
import type { SqliteStatement } from 'kysely';
import { readsMarkedBlobs, unmarkRow } from './sqlite-blobs.js';
import { holdsBinaryIds, idsAsBytes, idsAsText } from './sqlite-ids.js';

/** Most distinct statements kept prepared; the service itself issues a few dozen. */
const statementCacheSize = 500;

/**
 * The statement of each text, prepared on first use. One whose rows may hold marked blobs
 * (`sqlite-blobs.ts`, checked once, as it is prepared) reads each in the form its mark names.
 * On a store that holds its ids as bytes (`sqlite-ids.ts`) every statement binds and reads them
 * so. The connection reads the store's form when it opens, and again after a statement that
 * sets it (migration 0074's, in its transaction) and after every rollback, which
 * may have undone that.
 */
export function statementCache(database: SQLite.Database): (sql: string) => SqliteStatement {
  const form = { binaryIds: false };
  const readForm = () => {
    form.binaryIds = holdsBinaryIds(database.pragma('user_version', { simple: true }));
  };
  readForm();
  const statements = new Map<string, SqliteStatement>();
  return (sql) => {
    let statement = statements.get(sql);
    if (!statement) {
      const prepared = database.prepare(sql);
      const after = /^\s*(rollback\b|pragma user_version\b)/i.test(sql) ? readForm : undefined;
      statement = inForm(prepared, form, readsMarkedBlobs(sql), after);
      if (statements.size >= statementCacheSize) statements.clear();
      statements.set(sql, statement);
    }
    return statement;
  };
}

/**
 * A statement that binds and reads the store's ids in its form, and reads each marked blob of
 * its rows in the form the mark names (`marked`); `after` runs once it has run.
 */
function inForm(
  statement: SQLite.Statement,
  form: { readonly binaryIds: boolean },
  marked: boolean,
  after: (() => void) | undefined,
): SqliteStatement {
  const row = (value: unknown) => {
    if (form.binaryIds) idsAsText(value);
    return marked ? unmarkRow(value) : value;
  };
  const bind = (parameters: readonly unknown[]) =>
    form.binaryIds ? idsAsBytes(parameters) : parameters;
  return {
    reader: statement.reader,
    all: (parameters) => {
      const rows = statement.all(bind(parameters));
      if (form.binaryIds || marked) for (const each of rows) row(each);
      return rows;
    },
    run: (parameters) => {
      const result = statement.run(bind(parameters));
      after?.();
      return result;
    },
    *iterate(parameters) {
      for (const each of statement.iterate(bind(parameters))) yield row(each);
    },
  };
}
