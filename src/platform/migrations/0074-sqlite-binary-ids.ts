import { type Kysely, SqliteAdapter } from 'kysely';
import { holdIdsAsBytes } from '../sqlite-ids.js';

/**
 * On SQLite, every id held as its 16 bytes instead of its 36 characters of text
 * (`sqlite-ids.ts`): about 400 bytes a decision less, in its row, its keys, its customer's
 * states and its log entry. PostgreSQL's ids have been `uuid` since 0058; nothing changes there.
 *
 * 0.21.0 is the first release that reads a store in this form; the releases before it bind
 * ids as text, which would find nothing. So the migration names 0.21.0 as the oldest release
 * (`oldestRelease`: on both stores, as every migration's does; on PostgreSQL it changes nothing
 * else). Run again, it finds no id as text and does nothing but mark the store again.
 */
export const oldestRelease = '0.21.0';

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof SqliteAdapter)) return;
  await holdIdsAsBytes(db);
}
