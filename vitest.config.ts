import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
// Before any worker starts: the run's files go in a folder of its own (helpers/scratch.ts).
import './test/helpers/scratch.js';
import { budget } from './test/helpers/time.js';

/** Files that replace a module (`vi.mock`): each needs a process of its own. */
const mocking = ['test/backoffice/sign-in-decoy.test.ts'];

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    // The service's threads run the build global-setup.ts made (setup-threads.ts).
    setupFiles: ['test/setup-threads.ts'],
    // better-sqlite3 is a native addon: separate processes keep each file's store to itself.
    pool: 'forks',
    // Vitest's default is one file fewer than the cores (a single file at a time on two cores),
    // but most files spend part of their time waiting on a server, a child process or the
    // browser: one file more than the cores keeps them busy through those waits (on two cores,
    // 774 s against 858 with one file a core, and 839 against 913 in an earlier pair:
    // bench/notebook.md). Waits are budgets (helpers/time.ts), so a busier machine still passes.
    maxWorkers: availableParallelism() + 1,
    testTimeout: budget(20_000),
    hookTimeout: budget(60_000),
    // How long expect.poll waits for what must come true (it returns as soon as it does). A
    // browser step (htmx's preview, a page after a redirect) on a machine running two test files
    // at once, one of them Chromium, was seen taking over 2 s.
    expect: { poll: { timeout: budget(5_000) } },
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts', 'clients/typescript/test/**/*.test.ts'],
          exclude: mocking,
          // The files of one worker run one after another in one process, reusing the modules
          // it has loaded (the service, Fastify, Kysely: ~2 s a file to load again). Each file
          // starts and closes its own apps, stores and servers, and none changes a module.
          isolate: false,
        },
      },
      { extends: true, test: { name: 'isolated', include: mocking } },
    ],
  },
});
