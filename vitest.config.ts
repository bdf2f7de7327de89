import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // better-sqlite3 is a native addon: separate processes keep each file's store to itself.
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
