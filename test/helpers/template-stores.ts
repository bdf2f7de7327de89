/**
 * The run's migrated template stores (`global-setup.ts`): an SQLite file and a PostgreSQL
 * database with the service's schema, made once with `testDataKey`, which every test app's store
 * is copied from (`createMigrated` in `stores.ts`) instead of migrating its own.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registry } from '../../src/app/kinds.js';
import { loadConfig } from '../../src/platform/config.js';
import { createDb } from '../../src/platform/db.js';
import { migrateToLatest } from '../../src/platform/migrate.js';
import { testDataKey } from './data-key.js';
import { asAdmin } from './postgres-admin.js';

export interface TemplateStores {
  /** The SQLite file to copy. */
  sqlite: string;
  /** The name of the PostgreSQL database to copy (`create database … template …`). */
  postgres: string;
}

export async function makeTemplateStores(
  postgresAdminUrl: string,
): Promise<{ stores: TemplateStores; remove(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'consent-template-'));
  const sqlite = join(dir, 'consent.db');
  const postgres = `consent_template_${randomBytes(8).toString('hex')}`;
  await asAdmin(postgresAdminUrl, `create database ${postgres}`);
  const url = new URL(postgresAdminUrl);
  url.pathname = `/${postgres}`;
  await Promise.all([migrated(sqlite), migrated(url.toString())]);
  return {
    stores: { sqlite, postgres },
    async remove() {
      rmSync(dir, { recursive: true, force: true });
      await asAdmin(postgresAdminUrl, `drop database if exists ${postgres} with (force)`);
    },
  };
}

/** Migrates the store and closes it (a template database takes no connection while copied). */
async function migrated(databaseUrl: string): Promise<void> {
  const db = createDb(loadConfig({ DATABASE_URL: databaseUrl }));
  try {
    await migrateToLatest(db, testDataKey, registry.migrations);
  } finally {
    await db.destroy();
  }
}
