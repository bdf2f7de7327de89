import { sql } from 'kysely';
import type { Db } from './db.js';

/**
 * Whether the store orders and compares text byte by byte, as SQLite always does and as a
 * PostgreSQL database made with `LC_COLLATE 'C'` does. A database made with a language's
 * collation (`en_US.UTF-8`, `th_TH.UTF-8`, an ICU locale: the default of most images and
 * installers) orders `email_sms` before `email-news` and `a` before `B`, so lists ordered by a
 * code or a name come out in another order than on SQLite, and every look-up compares its keys
 * through the collation (docs/postgresql.md, "The database's collation").
 *
 * Asked of the store itself, so that it holds for either provider (libc or ICU) and every version.
 */
export async function comparesTextByBytes(db: Db): Promise<boolean> {
  const { rows } = await sql<{
    bytes: boolean | number;
  }>`select ('B' < 'a' and 'a-b' < 'a_b') as bytes`.execute(db);
  // PostgreSQL answers a boolean, SQLite 0 or 1.
  return Number(rows[0]?.bytes) === 1;
}
