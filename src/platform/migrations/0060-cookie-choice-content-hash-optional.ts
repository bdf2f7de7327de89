import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * A cookie choice's row no longer needs its copy of the SHA-256 of the configuration shown: the
 * hash is the configuration's (its content never changes once it leaves draft, and a choice is
 * made only on a published one), which the choice's receipt and the log's audit read since
 * 0.8.0 (`src/cookies/decisions-repository.ts`), and the log's leaf holds it besides. The column
 * becomes nullable and this release writes nothing in it: 65 bytes of hex a choice fewer, as
 * 0059 does for decisions.
 *
 * 0.8.0 reads the column nowhere and still writes it, so it runs on after this; 0.7.0 reads it,
 * and would answer a null in a receipt of a choice recorded since (`oldestRelease`). A later
 * release drops the column. PostgreSQL drops the constraint in its catalogue, at once (rows
 * written before keep their copies, unread, until the table is rewritten); SQLite drops the
 * column, writing every row of the table again, and adds it back nullable and empty.
 */
export const oldestRelease = '0.8.0';

export async function up(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    await sql`alter table cookie_decisions alter column content_sha256 drop not null`.execute(db);
    return;
  }
  const { rows } = await sql<{ notnull: number }>`select "notnull" from
    pragma_table_info('cookie_decisions') where name = 'content_sha256'`.execute(db);
  // Run again on a store it already changed, it leaves it as it is.
  if (rows[0]?.notnull !== 1) return;
  await sql`alter table cookie_decisions drop column content_sha256`.execute(db);
  await sql`alter table cookie_decisions add column content_sha256 text`.execute(db);
}
