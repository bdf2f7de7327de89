import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The stores every store-touching test runs on. Each test file loops its body over this list
 * (`describe.each(stores)`), so a new store joins every test by being added here.
 */
export interface TestStore {
  name: string;
  /** A fresh, empty store for one test file; `drop` removes it. */
  create(): Promise<{ databaseUrl: string; drop(): Promise<void> }>;
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
};

export const stores: TestStore[] = [sqliteStore];
