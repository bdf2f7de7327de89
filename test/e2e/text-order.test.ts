/**
 * Whether the store orders text byte by byte, as SQLite does (docs/postgresql.md, "The database's
 * collation"): the test stores do (the test server is made with the C locale), a PostgreSQL
 * database made with an ICU locale does not, and `serve` on such a database says so once, in a
 * warning, and answers as usual (that a start on the test stores gives none: serve.test.ts).
 * ICU locales for a database need PostgreSQL 15 or later (the embedded test server is 16).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { comparesTextByBytes } from '../../src/platform/text-order.js';
import { asAdmin } from '../helpers/postgres-admin.js';
import {
  makeTempStore,
  type ServerProcess,
  startServer,
  type TempStore,
  withStore,
} from '../helpers/process.js';
import { stores } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';

const warning = /orders text by a language's collation/;

describe.concurrent.each(stores)('on $name as the tests make it', (testStore) => {
  it('text is compared byte by byte: "B" before "a", "a-b" before "a_b"', async () => {
    const store = await makeTempStore(testStore);
    try {
      expect(await withStore(store, comparesTextByBytes)).toBe(true);
    } finally {
      await store.remove();
    }
  });
});

describe('a PostgreSQL database made with an ICU locale (en-US)', () => {
  let store: TempStore;
  let server: ServerProcess;

  beforeAll(async () => {
    const adminUrl = inject('postgresAdminUrl');
    const name = `consent_test_${randomBytes(8).toString('hex')}`;
    await asAdmin(
      adminUrl,
      `create database ${name} template template0 ` +
        `locale_provider icu icu_locale 'en-US' locale 'C'`,
    );
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    const dir = mkdtempSync(join(tmpdir(), 'consent-e2e-'));
    store = {
      kind: 'postgres',
      dir,
      databaseUrl: url.toString(),
      dbPath: url.toString(),
      remove: async () => {
        await server?.stop(budget(10_000));
        rmSync(dir, { recursive: true, force: true });
        await asAdmin(adminUrl, `drop database if exists ${name} with (force)`);
      },
    };
    server = await startServer({ store, logLevel: 'info' });
  });

  afterAll(async () => {
    await store?.remove();
  });

  it('does not compare text byte by byte', async () => {
    expect(await withStore(store, comparesTextByBytes)).toBe(false);
  });

  it('serve warns of it once, naming the setting and the docs, and answers as usual', async () => {
    const warned = server.logs().filter((line) => warning.test(String(line.msg)));
    expect(warned, server.describe()).toHaveLength(1);
    expect(warned[0]?.level).toBe(40);
    expect(String(warned[0]?.msg)).toContain("LC_COLLATE 'C'");
    expect(String(warned[0]?.msg)).toContain('docs/postgresql.md');
    const health = await fetch(`${server.baseUrl}/api/health`);
    expect(health.status).toBe(200);
  });
});
