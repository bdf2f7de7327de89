import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, inject } from 'vitest';
import { loadConfig } from '../../src/platform/config.js';
import { createDb, type Db } from '../../src/platform/db.js';
import { asAdmin, serverVersion } from './postgres-admin.js';

/**
 * The stores every store-touching test runs on. Each test file loops its body over this list
 * (`describe.each(stores)`), so each test runs on SQLite and on PostgreSQL.
 */
export interface TestStore {
  name: 'sqlite' | 'postgres';
  /** A fresh, empty store for one test file; `drop` removes it. */
  create(): Promise<{ databaseUrl: string; drop(): Promise<void> }>;
  /**
   * A fresh store with the service's schema already in place, made with `testDataKey`: a copy
   * of the run's template (`global-setup.ts`), so that a test file does not pay for the
   * migrations; `drop` removes it. Absent (a store of a benchmark's own), `create` is used and
   * the test app migrates it.
   */
  createMigrated?(): Promise<{ databaseUrl: string; drop(): Promise<void> }>;
}

export const sqliteStore: TestStore = {
  name: 'sqlite',
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'consent-test-'));
    return {
      databaseUrl: join(dir, 'consent.db'),
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  },
  async createMigrated() {
    const created = await this.create();
    copyFileSync(inject('templateStores').sqlite, created.databaseUrl);
    return created;
  },
};

/** A new database on the run's PostgreSQL server (see `global-setup.ts`). */
export const postgresStore: TestStore = {
  name: 'postgres',
  create: () => postgresDatabase(),
  createMigrated: () => postgresDatabase(inject('templateStores').postgres),
};

/**
 * How a copy of a template is made: by copying its files where the server can choose
 * (PostgreSQL 15 and later: `strategy file_copy`), not by its default there of writing every
 * block of the copy to the WAL. A copy of the service's schema on the tests' server took 47 ms
 * and 0.04 s of the server's CPU so, against 128 ms and 0.13 s (bench/notebook.md); servers
 * before 15 copy the files anyway. Asked once a test process.
 */
let fileCopy: Promise<boolean> | undefined;

async function templateCopy(adminUrl: string, template: string): Promise<string> {
  fileCopy ??= serverVersion(adminUrl).then((version) => version >= 150_000);
  return (await fileCopy) ? `template ${template} strategy file_copy` : `template ${template}`;
}

/**
 * A new database, empty or a copy of the template database named, with `create database`'s
 * other options as given (`locale_provider icu icu_locale 'en-US'`: text-order.test.ts).
 */
export async function postgresDatabase(template?: string, options = '') {
  const adminUrl = inject('postgresAdminUrl');
  const name = `consent_test_${randomBytes(8).toString('hex')}`;
  await asAdmin(
    adminUrl,
    [`create database ${name}`, template && (await templateCopy(adminUrl, template)), options]
      .filter(Boolean)
      .join(' '),
  );
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    databaseUrl: url.toString(),
    drop: () => asAdmin(adminUrl, `drop database if exists ${name} with (force)`),
  };
}

export const stores: TestStore[] = [sqliteStore, postgresStore];

/**
 * The store of a file where the store plays no part: what it checks is decided before or after
 * any query (the HTTP layer, the OpenAPI document, a back-office page's HTML, forms, roles and
 * sessions, the client package), so it runs on SQLite alone. The back-office has no query of its
 * own (`npm run lint:tables`): every query its pages run is run on both stores by the features'
 * own tests and by `backoffice/page-actions.test.ts`, which opens every page for every role on
 * both. A file that checks what a store does (a migration, a filter, an order, a date, a
 * refusal) loops over `stores`.
 */
export const storeAgnostic: TestStore[] = [sqliteStore];

/**
 * A fresh store of this kind with no schema yet, opened before the tests of the calling
 * `describe` block and dropped after them: for tests that migrate it themselves.
 */
export function useBareStore(store: TestStore): { readonly db: Db; readonly databaseUrl: string } {
  let db: Db | undefined;
  let databaseUrl = '';
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const created = await store.create();
    drop = created.drop;
    databaseUrl = created.databaseUrl;
    db = createDb(loadConfig({ DATABASE_URL: databaseUrl }));
  });
  afterAll(async () => {
    await db?.destroy();
    await drop?.();
  });
  return {
    get db() {
      if (!db) throw new Error('the bare store is opened in beforeAll');
      return db;
    },
    /** Its URL, to open another connection to it. */
    get databaseUrl() {
      if (!databaseUrl) throw new Error('the bare store is made in beforeAll');
      return databaseUrl;
    },
  };
}

/**
 * The one store a browser journey runs on. A journey checks what Chromium shows and does; what
 * each page reads and writes is checked on both stores by the component tests
 * (`test/backoffice/`, `page-actions.test.ts` for every page), so each journey runs once, and the
 * journeys share the two stores between them.
 */
export function journeyStore(name: TestStore['name']): TestStore[] {
  return stores.filter((store) => store.name === name);
}
