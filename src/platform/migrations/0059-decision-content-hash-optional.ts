import type { Kysely } from 'kysely';
import { makeNullable } from './nullable-column.frozen.js';

/**
 * A decision's row no longer needs its copy of the SHA-256 of the text shown: that hash is its
 * version's (a published version's text never changes), which every read of a decision takes
 * since 0.7.0 (`src/decisions/record-repository.ts`), and the log's leaf holds it besides. The
 * column becomes nullable and this release writes nothing in it: 65 bytes of hex a decision
 * fewer on both stores (a null takes no byte of a PostgreSQL row and one of an SQLite record).
 *
 * 0.7.0 reads the column nowhere and still writes it, so it runs on after this; 0.6.0 reads it,
 * and would answer a null for a decision recorded since (`oldestRelease`). A later release
 * drops the column.
 *
 * PostgreSQL drops the constraint in its catalogue, at once; rows written before keep their
 * copies, unread, until the table is rewritten (`VACUUM FULL`, `pg_repack`). SQLite cannot drop
 * a column's constraint in place: the column is dropped, which writes every row of the table
 * again, holding the store's lock (its cost a million decisions is in CHANGELOG.md), and added
 * back nullable and empty.
 */
export const oldestRelease = '0.7.0';

export async function up(db: Kysely<unknown>): Promise<void> {
  await makeNullable(db, 'decisions', 'content_sha256');
}
