/**
 * What a start checks before it changes the store: that the store answers, that the log's
 * signing key is the one the store's logs are signed with (and is where the settings say), and,
 * on an SQLite file with migrations pending, that the disk has room for them. A start that fails
 * a check exits with a sentence saying so, and the store's schema is as it was: the same
 * migrations applied, no key file made. (The data key's check: test/subjects/data-key.test.ts.)
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/platform/db.js';
import { generateNoteKeys } from '../../src/proof/index.js';
import { makeTempStore, runCli, type TempStore, withStore } from '../helpers/process.js';
import { asBefore0074 } from '../helpers/schema-history.js';
import { stores } from '../helpers/stores.js';
import { testPasswordHashCost } from '../helpers/time.js';

const publicBaseUrl = 'http://127.0.0.1:3000';
const keyA = generateNoteKeys('127.0.0.1:3000/consent-log');
const keyB = generateNoteKeys('127.0.0.1:3000/consent-log');
/** The last migration, taken back off the store so that it has one pending. */
const last = {
  name: '0074-sqlite-binary-ids',
  indexes: [] as string[],
  tables: [] as string[],
  columns: [] as Array<{ table: string; column: string }>,
  /** What else it changed, changed back. */
  undo: (db: Db) => asBefore0074(db),
};

describe.each(stores)('checks before a start changes the store on $name', (testStore) => {
  let store: TempStore;
  let env: Record<string, string>;
  const applied = () =>
    withStore(store, async (db) =>
      (
        await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db)
      ).rows.map((row) => row.name),
    );

  beforeAll(async () => {
    store = await makeTempStore(testStore);
    env = {
      DATABASE_URL: store.databaseUrl,
      PUBLIC_BASE_URL: publicBaseUrl,
      LOG_LEVEL: 'warn',
      PASSWORD_HASH_COST: String(testPasswordHashCost),
      DATA_ENCRYPTION_KEY_FILE: join(store.dir, 'data.key'),
    };
    // A store of the release before the last migration, whose tenant's log is signed with A.
    const created = await runCli(
      [
        'tenant',
        'create',
        '--alias',
        'acme',
        '--email',
        'o@example.com',
        '--password',
        'pw-123456789',
      ],
      { ...env, LOG_SIGNING_KEY: keyA.signerKey },
      { cwd: store.dir },
    );
    expect(created.code, created.stderr).toBe(0);
    const tenantId = (JSON.parse(created.stdout) as { id: string }).id;
    await withStore(store, async (db) => {
      await db
        .insertInto('tlog_logs')
        .values({
          log_id: tenantId,
          tenant_id: tenantId,
          origin: `127.0.0.1:3000/consent-log/${tenantId}`,
          verifier_key: keyA.verifierKey,
          created_at: '2026-11-01T00:00:00.000Z',
        })
        .execute();
      await sql`delete from kysely_migration where name = ${last.name}`.execute(db);
      for (const index of last.indexes) await sql`drop index ${sql.ref(index)}`.execute(db);
      for (const table of last.tables) await sql`drop table ${sql.table(table)}`.execute(db);
      for (const { table, column } of last.columns) {
        await sql`alter table ${sql.table(table)} drop column ${sql.ref(column)}`.execute(db);
      }
      await last.undo(db);
    });
  });
  afterAll(async () => {
    await store?.remove();
  });

  it('another signing key: serve and migrate exit saying so, with nothing changed', async () => {
    const before = await applied();
    expect(before).not.toContain(last.name);
    for (const command of [['serve'], ['migrate']]) {
      const result = await runCli(
        command,
        { ...env, LOG_SIGNING_KEY: keyB.signerKey },
        {
          cwd: store.dir,
        },
      );
      expect(result.code, command.join(' ')).not.toBe(0);
      expect(result.stderr).toContain(
        `The decision log signing key is not the one this store's logs are signed with (theirs: ${keyA.verifierKey}; this one: ${keyB.verifierKey})`,
      );
      expect(result.stderr).toContain('Nothing was changed');
      expect(await applied()).toEqual(before);
    }
  });

  it('no signing key where the settings say: refused, and no key file is made', async () => {
    const before = await applied();
    const keyFile = join(store.dir, 'elsewhere', 'log-signing.key');
    const result = await runCli(
      ['migrate'],
      { ...env, LOG_SIGNING_KEY_FILE: keyFile },
      {
        cwd: store.dir,
      },
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(
      `This store's decision logs are signed with a key, and there is none at ${keyFile}`,
    );
    expect(existsSync(keyFile)).toBe(false);
    expect(await applied()).toEqual(before);
  });

  if (testStore.name === 'sqlite') {
    it('too little free disk for the pending migrations: refused, with the figures', async () => {
      const before = await applied();
      const result = await runCli(
        ['migrate'],
        // More margin than any disk has.
        { ...env, LOG_SIGNING_KEY: keyA.signerKey, MIGRATION_FREE_DISK_MARGIN_MB: '1000000000' },
        { cwd: store.dir },
      );
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(
        /Not enough free disk beside .* to apply 1 pending migration\(s\): \d+ MB free, \d+ MB wanted .*Nothing was changed/,
      );
      expect(await applied()).toEqual(before);
    });
  }

  it('with the right key (and room), the pending migration is applied', async () => {
    const result = await runCli(
      ['migrate'],
      { ...env, LOG_SIGNING_KEY: keyA.signerKey },
      {
        cwd: store.dir,
      },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ applied: [last.name] });
    // With nothing pending, the disk margin is not asked for.
    const again = await runCli(
      ['migrate'],
      { ...env, LOG_SIGNING_KEY: keyA.signerKey, MIGRATION_FREE_DISK_MARGIN_MB: '1000000000' },
      { cwd: store.dir },
    );
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual({ applied: [] });
  });
});

describe('a PostgreSQL store that does not answer', () => {
  it('stops a start before anything, no key file made', async () => {
    const dir = (await makeTempStore()).dir;
    const env = {
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere',
      PUBLIC_BASE_URL: publicBaseUrl,
      DATABASE_CONNECT_TIMEOUT_MS: '2000',
    };
    for (const command of [['serve'], ['migrate']]) {
      const result = await runCli(command, env, { cwd: dir });
      expect(result.code, command.join(' ')).not.toBe(0);
      expect(result.stderr).toContain('The store cannot be reached');
      expect(result.stderr).toContain('nothing was changed');
      expect(existsSync(join(dir, 'data'))).toBe(false);
    }
  });
});
