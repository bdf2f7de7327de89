import type { Kysely } from 'kysely';
import { makeNullable } from './nullable-column.frozen.js';

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
  await makeNullable(db, 'cookie_decisions', 'content_sha256');
}
