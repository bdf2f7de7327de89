/**
 * Which copy of the database the service classifies with: the one an operator refreshed from a
 * file (`consent-service cookie database refresh --file …`, kept in the store, so every instance
 * uses it), else the one pinned with the release. A refreshed copy is checked whole before it
 * replaces anything: a file of another form changes nothing.
 */
import { readFileSync } from 'node:fs';
import type { Db, Executor } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { sha256Hex } from '../platform/hashing.js';
import { nowIso } from '../platform/time.js';
import { type CookieDatabase, readCookieDatabase } from './database.js';

/** A copy of the database and where it came from. */
export interface CookieDatabaseCopy {
  database: CookieDatabase;
  /** `pinned` (the release's) or `refreshed` (an operator's, from the store). */
  copy: 'pinned' | 'refreshed';
  /** The file's name or what the operator called it; the pinned copy's path. */
  source: string;
  sha256: string;
  entries: number;
  /** When the operator refreshed it; null for the pinned copy. */
  refreshed_at: string | null;
}

const pinnedPath = new URL(
  '../../vendor/open-cookie-database/open-cookie-database.csv',
  import.meta.url,
);

let pinned: CookieDatabaseCopy | undefined;

/** The copy pinned with the release (vendor/open-cookie-database), read once. */
export function pinnedCopy(): CookieDatabaseCopy {
  if (!pinned) {
    const text = readFileSync(pinnedPath, 'utf8');
    const database = readCookieDatabase(text);
    pinned = {
      database,
      copy: 'pinned',
      source: 'vendor/open-cookie-database/open-cookie-database.csv',
      sha256: sha256Hex(text),
      entries: database.size,
      refreshed_at: null,
    };
  }
  return pinned;
}

/** The pinned copy's database alone. */
export function pinnedCookieDatabase(): CookieDatabase {
  return pinnedCopy().database;
}

/** The last refreshed copy read, by its SHA-256: read again only when another is stored. */
let refreshed: CookieDatabaseCopy | undefined;

/** The copy in use: the refreshed one when the store has one, else the pinned one. */
export async function currentCookieDatabase(db: Executor): Promise<CookieDatabaseCopy> {
  const meta = await db
    .selectFrom('cookie_database')
    .select(['sha256', 'source', 'entries', 'refreshed_at'])
    .where('id', '=', 1)
    .executeTakeFirst();
  if (!meta) return pinnedCopy();
  if (refreshed?.sha256 !== meta.sha256) {
    const row = await db
      .selectFrom('cookie_database')
      .select('csv')
      .where('id', '=', 1)
      .executeTakeFirstOrThrow();
    refreshed = { database: readCookieDatabase(row.csv), copy: 'refreshed', ...meta };
  }
  return refreshed;
}

/**
 * Replaces the copy in use with this file's text, once it reads as a whole database (else a
 * `400 1001` naming the line, and nothing changes). Answers the new copy's description.
 */
export async function refreshCookieDatabase(
  db: Db,
  text: string,
  source: string,
): Promise<Omit<CookieDatabaseCopy, 'database'>> {
  let database: CookieDatabase;
  try {
    database = readCookieDatabase(text);
  } catch (error) {
    throw new AppError('invalidRequest', {
      message: `The file is not a copy of the Open Cookie Database: ${(error as Error).message}`,
    });
  }
  const row = {
    id: 1,
    csv: text,
    sha256: sha256Hex(text),
    entries: database.size,
    source,
    refreshed_at: nowIso(),
  };
  await db
    .insertInto('cookie_database')
    .values(row)
    .onConflict((oc) =>
      oc.column('id').doUpdateSet((eb) => ({
        csv: eb.ref('excluded.csv'),
        sha256: eb.ref('excluded.sha256'),
        entries: eb.ref('excluded.entries'),
        source: eb.ref('excluded.source'),
        refreshed_at: eb.ref('excluded.refreshed_at'),
      })),
    )
    .execute();
  const { csv: _csv, id: _id, ...described } = row;
  return { copy: 'refreshed', ...described };
}
