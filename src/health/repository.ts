import { sql } from 'kysely';
import type { Db } from '../platform/db.js';

/** One `select 1`: resolves while the store answers, rejects with its error otherwise. */
export async function pingStore(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}
