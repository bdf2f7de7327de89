import { existsSync, renameSync, statSync } from 'node:fs';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database } from './database.js';
import type { Db } from './db.js';
import { statementCache } from './sqlite-statements.js';

export class BackupError extends Error {}

/**
 * Copies a live SQLite store to `to` with SQLite's online backup API: the copy is the store as
 * one transaction saw it, the WAL's committed pages included, while the service goes on writing
 * (a `cp` of the file alone misses what is still in its WAL). The first step copies a few pages;
 * the next copies all the rest in one read transaction, so a write in between only makes SQLite
 * start over once. The copy is checked (`integrity_check`) before it is called done.
 */
export async function backupSqliteFile(path: string, to: string, busyTimeoutMs: number) {
  if (existsSync(to))
    throw new BackupError(`${to} already exists: a backup never overwrites a file.`);
  if (!existsSync(path)) throw new BackupError(`There is no store at ${path}.`);
  const source = new SQLite(path, { readonly: true, fileMustExist: true, timeout: busyTimeoutMs });
  try {
    await source.backup(to, { progress: () => Number.MAX_SAFE_INTEGER });
  } finally {
    source.close();
  }
  checkIntegrity(to);
  return { file: to, bytes: statSync(to).size };
}

/**
 * Puts the store at `from` (a backup) in place of the one at `path`, which is kept beside it,
 * renamed with the time, rather than lost. Refused while the store looks open (a WAL beside it:
 * a service still running, or one that did not stop cleanly), or when `from` is not an intact
 * SQLite file.
 */
export async function restoreSqliteFile(path: string, from: string, now: string) {
  if (!existsSync(from)) throw new BackupError(`There is no backup at ${from}.`);
  checkIntegrity(from);
  if (existsSync(`${path}-wal`)) {
    throw new BackupError(
      `${path}-wal exists: a process has the store open, or did not stop cleanly. Stop the service (and, if it was killed, start and stop it once) before restoring. Nothing was changed.`,
    );
  }
  let kept: string | undefined;
  if (existsSync(path)) {
    kept = `${path}.before-restore-${now.replace(/[:.]/g, '-')}`;
    renameSync(path, kept);
  }
  const source = new SQLite(from, { readonly: true, fileMustExist: true });
  try {
    await source.backup(path, { progress: () => Number.MAX_SAFE_INTEGER });
  } finally {
    source.close();
  }
  checkIntegrity(path);
  return { restored: path, from, kept_previous: kept ?? null };
}

function checkIntegrity(file: string): void {
  const db = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    const result = db.pragma('integrity_check', { simple: true });
    if (result !== 'ok') throw new BackupError(`${file} is damaged: ${String(result)}`);
    const migrations = db
      .prepare(`select count(*) as n from sqlite_master where name = 'kysely_migration'`)
      .get() as { n: number };
    if (migrations.n === 0) throw new BackupError(`${file} is not a store of this service.`);
  } catch (error) {
    if (error instanceof BackupError) throw error;
    throw new BackupError(`${file} is not an SQLite store: ${(error as Error).message}`);
  } finally {
    db.close();
  }
}

/** A backup (or any SQLite store) opened read-only, to check it without changing a byte. */
export function openReadOnly(file: string): Db {
  const database = new SQLite(file, { readonly: true, fileMustExist: true });
  // Its statements bind and read ids in the form the copy holds them, as the service's do.
  const prepare = statementCache(database);
  return new Kysely<Database>({
    dialect: new SqliteDialect({ database: { close: () => database.close(), prepare } }),
  });
}
