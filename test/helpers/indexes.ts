import { CompiledQuery, sql } from 'kysely';
import { loadConfig } from '../../src/platform/config.js';
import { createDb, type Db, isPostgres } from '../../src/platform/db.js';
import { resolveIdType } from '../../src/platform/id-type.js';
import { eventually } from './webhook-receiver.js';

/** An index as a test compares it: its name, whether it is unique, its columns in order. */
export interface IndexShape {
  name: string;
  unique: boolean;
  columns: string[];
}

/** Each index of `table` by name (SQLite's constraints' indexes under SQLite's own names). */
export async function indexesOf(db: Db, table: string): Promise<IndexShape[]> {
  if (isPostgres(db)) {
    const { rows } = await sql<IndexShape>`
      select i.relname as name, x.indisunique as unique,
        array(select a.attname::text from unnest(x.indkey) with ordinality k(attnum, n)
          join pg_attribute a on a.attrelid = x.indrelid and a.attnum = k.attnum order by k.n) as columns
      from pg_index x join pg_class i on i.oid = x.indexrelid
      where x.indrelid = to_regclass(${table}) order by i.relname`.execute(db);
    return rows;
  }
  const list = await sql<{ name: string; unique: number }>`select name, "unique"
    from pragma_index_list(${table}) order by name`.execute(db);
  const found: IndexShape[] = [];
  for (const index of list.rows) {
    const columns = await sql<{ name: string }>`select name from pragma_index_info(${index.name})
      order by seqno`.execute(db);
    found.push({
      name: index.name,
      unique: index.unique === 1,
      columns: columns.rows.map((column) => column.name),
    });
  }
  return found;
}

/**
 * The indexes whose names start with one of `prefixes` that a statement's plan reads, and any
 * sort, in the plan's order: on PostgreSQL the plan a large table gets (the tests' tables are
 * small); on SQLite the plan it makes from its statistics, or without them from the keys alone
 * (`EXPLAIN QUERY PLAN`; a table kept by its key reads it as `PRIMARY KEY`).
 */
export async function indexesRead(
  db: Db,
  query: { sql: string; parameters: readonly unknown[] },
  prefixes: readonly string[],
): Promise<string[]> {
  if (!isPostgres(db)) {
    const { rows } = await db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]),
    );
    const read: string[] = [];
    for (const { detail } of rows) {
      const index = /USING (?:COVERING )?INDEX (\S+)|USING (PRIMARY KEY)/.exec(detail);
      const name = index?.[1] ?? index?.[2];
      if (
        name !== undefined &&
        (name === 'PRIMARY KEY' || prefixes.some((p) => name.startsWith(p)))
      ) {
        read.push(name);
      }
      if (/^USE TEMP B-TREE/.test(detail)) read.push('a sort');
    }
    return read;
  }
  return db.connection().execute(async (connection) => {
    await sql`set enable_seqscan = off`.execute(connection);
    await sql`set enable_bitmapscan = off`.execute(connection);
    await sql`set enable_sort = off`.execute(connection);
    try {
      const { rows } = await connection.executeQuery(
        CompiledQuery.raw(`explain (format json) ${query.sql}`, [...query.parameters]),
      );
      const read: string[] = [];
      JSON.parse(JSON.stringify(rows), (key, value) => {
        const named = typeof value === 'string' && prefixes.some((p) => value.startsWith(p));
        if (key === 'Index Name' && named) {
          read.push(value);
        }
        if (key === 'Node Type' && value === 'Sort') read.push('a sort');
        return value;
      });
      return read;
    } finally {
      await sql`reset all`.execute(connection);
    }
  });
}

/**
 * Vacuums `tables` on PostgreSQL until every page of each is marked visible to all readers, as a
 * store's autovacuum leaves them in time. One vacuum is not always enough: a transaction still
 * open in the same database (a background pass of the app's) keeps rows written before it ends
 * from being visible to all, and a page whose rows are not is left unmarked.
 */
export async function vacuumUntilAllVisible(db: Db, tables: readonly string[]): Promise<void> {
  await eventually(async () => {
    await sql.raw(`vacuum (analyze) ${tables.join(', ')}`).execute(db);
    const { rows } = await sql<{ marked: boolean }>`select bool_and(relallvisible = relpages)
      as marked from pg_class where oid = any(${[...tables]}::text[]::regclass[])`.execute(db);
    return rows[0]?.marked === true;
  });
}

/**
 * A second handle on the store at `databaseUrl` that keeps every statement run through it, so
 * that a test can run a read of the service's own and take the plan of the one statement it ran
 * (`indexesRead` on `db`, the test's handle).
 */
export function planWatcher(db: Db, databaseUrl: string, prefixes: readonly string[]) {
  const statements: { sql: string; parameters: readonly unknown[] }[] = [];
  const watched = createDb(loadConfig({ DATABASE_URL: databaseUrl }), (event) => {
    if (event.level === 'query') statements.push(event.query);
  });
  return {
    db: watched,
    /** The indexes read by the one statement `run` ran through `db`. */
    async read(run: () => Promise<unknown>): Promise<string[]> {
      // A handle's first statement reads the store's id type first (src/platform/id-type.ts).
      await resolveIdType(watched);
      statements.length = 0;
      await run();
      const [statement, ...more] = statements;
      if (statement === undefined || more.length > 0) {
        throw new Error(`the read ran ${statements.length} statements, not one`);
      }
      return indexesRead(db, statement, prefixes);
    },
    /** The indexes read by each statement `run` ran through `db`, one list a statement. */
    async readEach(run: () => Promise<unknown>): Promise<string[][]> {
      await resolveIdType(watched);
      statements.length = 0;
      await run();
      const ran = [...statements];
      const read: string[][] = [];
      for (const statement of ran) read.push(await indexesRead(db, statement, prefixes));
      return read;
    },
    destroy: () => watched.destroy(),
  };
}
