/**
 * `backupSqliteFile` copies what is committed in the WAL as well as the file: a decision
 * committed a moment before a backup, not yet checkpointed into the file, is in the copy.
 * (The whole command under write load: test/e2e/backup.test.ts.)
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { backupSqliteFile } from '../../src/platform/sqlite-backup.js';

describe('an SQLite backup', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sqlite-backup-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('holds the rows committed to the WAL and not yet written back to the file', async () => {
    const path = join(dir, 'store.db');
    const live = new SQLite(path);
    live.pragma('journal_mode = WAL');
    live.pragma('wal_autocheckpoint = 0');
    live.exec('create table kysely_migration (name text primary key, timestamp text)');
    live.exec('create table decisions (id text primary key)');
    live.pragma('wal_checkpoint(truncate)');
    live.prepare('insert into decisions values (?)').run('committed-in-the-wal');
    expect(existsSync(`${path}-wal`)).toBe(true);

    const to = join(dir, 'backup.db');
    await backupSqliteFile(path, to, 1000);
    live.close();
    const copy = new SQLite(to, { readonly: true });
    try {
      expect(copy.prepare('select id from decisions').all()).toEqual([
        { id: 'committed-in-the-wal' },
      ]);
    } finally {
      copy.close();
    }
  });
});
