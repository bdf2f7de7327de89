/**
 * SQLite's statements prepared once each, for the main connection (`sqlite.ts`) and each reader
 * thread (`reader-loop.ts`). Kysely prepares every query anew; preparing (parsing and planning
 * the SQL) costs more than running these small indexed statements. The queries' text repeats,
 * with only the parameters changing, so each text is prepared once and its statement reused.
 */
import type SQLite from 'better-sqlite3';
import type { SqliteStatement } from 'kysely';
import { readsMarkedBlobs, unmarkRow, unmarkRows } from './sqlite-blobs.js';

/** Most distinct statements kept prepared; the service itself issues a few dozen. */
const statementCacheSize = 500;

/**
 * The statement of each text, prepared on first use. One whose rows may hold marked blobs
 * (`sqlite-blobs.ts`, checked once, as it is prepared) reads each in the form its mark names.
 */
export function statementCache(database: SQLite.Database): (sql: string) => SqliteStatement {
  const statements = new Map<string, SqliteStatement>();
  return (sql) => {
    let statement = statements.get(sql);
    if (!statement) {
      const prepared = database.prepare(sql);
      statement = readsMarkedBlobs(sql) ? unmarking(prepared) : prepared;
      if (statements.size >= statementCacheSize) statements.clear();
      statements.set(sql, statement);
    }
    return statement;
  };
}

/** A statement whose rows' marked blobs are read in the form each names. */
function unmarking(statement: SQLite.Statement): SqliteStatement {
  return {
    reader: statement.reader,
    all: (parameters) => unmarkRows(statement.all(parameters)),
    run: (parameters) => statement.run(parameters),
    *iterate(parameters) {
      for (const row of statement.iterate(parameters)) yield unmarkRow(row);
    },
  };
}
