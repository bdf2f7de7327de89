import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { type AppOptions, buildApp } from '../../src/app/app.js';
import { registry as serviceKinds } from '../../src/app/kinds.js';
import type { DecisionWriterHandle } from '../../src/decisions/writer.js';
import { observedStore } from '../../src/metrics/queries.js';
import { type Config, loadConfig } from '../../src/platform/config.js';
import type { Db } from '../../src/platform/db.js';
import { migrateToLatest } from '../../src/platform/migrate.js';
import type { ReaderThreads } from '../../src/platform/reader-threads.js';
import { generateNoteKeys } from '../../src/proof/index.js';
import type { Registry } from '../../src/record-kinds/index.js';
import { findSubjectId } from '../../src/subjects/service.js';
import { createVault, type SubjectVault } from '../../src/subjects/vault.js';
import type { Writers } from '../../src/write-path/writers.js';
import { testDataKey } from './data-key.js';
import type { TestStore } from './stores.js';
import { testPasswordHashCost, testStatementTimeoutMs } from './time.js';

export interface TestApp {
  app: FastifyInstance;
  db: Db;
  config: Config;
  /** The app's data key at work, to read what the store keeps sealed. */
  vault: SubjectVault;
  /** The kinds of record the app keeps. */
  registry: Registry;
  /** The app's writer of decisions (on an SQLite file, a thread with a connection of its own). */
  writer: DecisionWriterHandle;
  /** Every writer of the hot path: channel changes and partner blocks beside the decisions. */
  writers: Writers;
  /** On an SQLite file, the threads that read for `pending`. */
  readers: ReaderThreads | undefined;
  close(): Promise<void>;
}

/** One signing key for the decision logs of every test app in this file, so none writes a file. */
export const testLogKeys = generateNoteKeys('consent.test/consent-log');

export { testDataKey };

/** The whole service in process on a fresh store of the given kind, with its real HTTP stack. */
export async function startTestApp(
  store: TestStore,
  env: Record<string, string> = {},
  options: {
    /** Runs on the empty store before the service migrates it: to start from an older schema. */
    beforeMigrations?: (db: Db) => Promise<void>;
    /** Told of every route the service registers. */
    onRoute?: AppOptions['onRoute'];
    /** The kinds of record, when not the service's own (a test's kind added). */
    registry?: Registry;
    /** The port to listen on (its `PUBLIC_BASE_URL` in `env`), for a test a browser or IdP calls. */
    port?: number;
  } = {},
): Promise<TestApp> {
  // A copy of the run's migrated template, unless the test starts from an empty store.
  const { databaseUrl, drop } =
    options.beforeMigrations || !store.createMigrated
      ? await store.create()
      : await store.createMigrated();
  // The log's record of signed checkpoints, the app's own (for PostgreSQL its default is
  // `data/` under the working directory, which every test app would share).
  const scratch = mkdtempSync(join(tmpdir(), 'consent-app-'));
  const config = loadConfig({
    LOG_CHECKPOINTS_FILE: join(scratch, 'log-checkpoints.json'),
    DATABASE_URL: databaseUrl,
    PUBLIC_BASE_URL: 'https://consent.test',
    RATE_LIMIT_PER_MINUTE: '0',
    AUTH_FAILURES_PER_MINUTE: '0',
    COOKIE_RATE_LIMIT_PER_MINUTE: '0',
    LOG_SIGNING_KEY: testLogKeys.signerKey,
    DATA_ENCRYPTION_KEY: testDataKey.toString('base64'),
    PASSWORD_HASH_COST: String(testPasswordHashCost),
    DATABASE_STATEMENT_TIMEOUT_MS: String(testStatementTimeoutMs),
    ...env,
  });
  // As `serve` does: metrics (when METRICS_* is set) made first, to time the store's statements.
  const { db, metrics } = observedStore(config);
  const vault = createVault(Buffer.from(config.dataEncryptionKey ?? '', 'base64'));
  await options.beforeMigrations?.(db);
  const registry = options.registry ?? serviceKinds;
  await migrateToLatest(db, vault.dataKey, registry.migrations);
  let writer: DecisionWriterHandle | undefined;
  let writers: Writers | undefined;
  let readers: ReaderThreads | undefined;
  const app = await buildApp(config, db, {
    logger: false,
    onReaders: (made) => {
      readers = made;
    },
    onDecisionWriter: (made) => {
      writer = made;
    },
    onWriters: (made) => {
      writers = made;
    },
    ...(options.onRoute ? { onRoute: options.onRoute } : {}),
    registry,
    ...(metrics ? { metrics } : {}),
  });
  await app.ready();
  // Listening too: `latest` and `pending` over the socket go the hot path (helpers/two-paths.ts).
  await app.listen({ host: '127.0.0.1', port: options.port ?? 0 });
  if (!writer || !writers) throw new Error('the app made no writer of decisions');
  return {
    app,
    db,
    config,
    vault,
    registry,
    writer,
    writers,
    readers,
    async close() {
      await app.close();
      await db.destroy();
      rmSync(scratch, { recursive: true, force: true });
      await drop();
    },
  };
}

/** The random id the store knows a customer by (undefined: no record, or erased). */
export function subjectIdOf(t: TestApp, tenantId: string, customerId: string) {
  return findSubjectId(t.db, t.vault, tenantId, customerId);
}

export function json<T = any>(response: LightMyRequestResponse): T {
  return JSON.parse(response.body) as T;
}

/** Asserts the contract's error shape and returns its code. */
export function expectErrorShape(response: LightMyRequestResponse): {
  code: string;
  message: string;
} {
  const type = response.headers['content-type'];
  if (type !== 'application/json; charset=utf-8') {
    throw new Error(`error response has content-type ${String(type)}: ${response.body}`);
  }
  const body = json(response);
  if (
    typeof body.code !== 'string' ||
    !/^\d+$/.test(body.code) ||
    typeof body.message !== 'string'
  ) {
    throw new Error(`not an error body: ${response.body}`);
  }
  return body;
}
