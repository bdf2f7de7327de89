import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyBaseLogger } from 'fastify';
import {
  type Integrator,
  idleIntegrator,
  leavesWaiting,
  startIntegrator,
} from './decision-log/index.js';
import type { DecisionJob, DecisionOutcome } from './decisions/index.js';
import {
  type DecisionWriterHandle,
  decisionWriterOnStore,
  decisionWriterOnThread,
} from './decisions/index.js';
import type { Config } from './platform/config.js';
import type { Db, StoreSettings } from './platform/db.js';
import { isPostgresUrl } from './platform/postgres.js';
import { sqlitePath } from './platform/sqlite.js';
import { startWriterThread } from './platform/writer-thread.js';
import type { NoteSigner } from './proof/index.js';
import type { SubjectVault } from './subjects/index.js';

/** What the writer thread is started with (see `sqlite-writer.ts`): plain data only. */
export interface WriterThreadData {
  store: StoreSettings;
  dataKey: Uint8Array;
  signingKey: Pick<Config, 'logSigningKey' | 'logSigningKeyFile' | 'publicBaseUrl'>;
  logLevel: string;
  logIntegrateIntervalMs: number;
}

/** Who writes the hot path's records: decisions, and the decision log's appends. */
export interface Writers {
  decisions: DecisionWriterHandle;
  /** Started by `start` (the app's `onReady`). */
  integrator(): Integrator;
  start(): Promise<void>;
  /** Lets the writes in flight finish, then stops the integrator and the thread. */
  close(): Promise<void>;
}

/**
 * Every store writes decisions the same way, in batches through `recordDecisions`; what differs
 * is where. On an SQLite file, a writer thread with a connection of its own writes them and
 * appends to the decision log (`sqlite-writer.ts`): the main thread never waits for the file's
 * lock or its fsync. It starts with the first decision, or as soon as leaves wait to be appended.
 * On PostgreSQL the decisions that arrive together share a transaction (group commit), as they
 * do, one batch at a time, on an SQLite store in memory; both on the main thread's store.
 */
export function createWriters(
  config: Config,
  db: Db,
  vault: SubjectVault,
  signer: NoteSigner,
  log: FastifyBaseLogger,
  options: { logLevel: string; onBatch?: (decisions: number) => void },
): Writers {
  const postgres = isPostgresUrl(config.databaseUrl);
  if (postgres || sqlitePath(config.databaseUrl) === ':memory:') {
    let integrator: Integrator | undefined;
    return {
      decisions: decisionWriterOnStore(
        db,
        vault,
        postgres ? groupCommitsInFlight(config.databasePoolSize) : 1,
        options.onBatch,
      ),
      integrator: () => integrator ?? idleIntegrator,
      async start() {
        integrator = startIntegrator(db, signer, log, config.logIntegrateIntervalMs);
      },
      close: async () => integrator?.stop(),
    };
  }
  const data = writerThreadData(config, vault, options);
  const thread = startWriterThread<DecisionJob, DecisionOutcome>(
    db,
    writerThreadEntry,
    data,
    options.onBatch,
  );
  const integrator: Integrator = { kick: () => thread.task('integrate'), stop: async () => {} };
  // While the thread is not running, the main thread looks for queued leaves (an erasure's,
  // or those an earlier run left) at the integrator's pace, and starts it for them.
  let watch: NodeJS.Timeout | undefined;
  const startForLeaves = async () => {
    if (!thread.running() && (await leavesWaiting(db))) await integrator.kick();
  };
  return {
    decisions: decisionWriterOnThread(thread),
    integrator: () => integrator,
    async start() {
      const look = () => {
        startForLeaves().catch((error: unknown) => {
          log.error({ err: error }, 'appending to the decision log failed; retrying');
        });
      };
      watch = setInterval(look, config.logIntegrateIntervalMs);
      watch.unref();
      look();
    },
    close: async () => {
      clearInterval(watch);
      await thread.close();
    },
  };
}

// Beside this file: `.ts` from source, `.js` once built.
const here = import.meta.url;
export const writerThreadEntry = new URL(`./sqlite-writer${extname(fileURLToPath(here))}`, here);

/** What the thread is told: plain data, only what it needs of the configuration. */
export function writerThreadData(
  config: Config,
  vault: SubjectVault,
  options: { logLevel: string },
): WriterThreadData {
  return {
    store: storeSettings(config),
    dataKey: vault.dataKey,
    signingKey: {
      logSigningKey: config.logSigningKey,
      logSigningKeyFile: config.logSigningKeyFile,
      publicBaseUrl: config.publicBaseUrl,
    },
    logLevel: options.logLevel,
    logIntegrateIntervalMs: config.logIntegrateIntervalMs,
  };
}

/** Only what opening the store takes: the rest of the configuration stays on the main thread. */
function storeSettings(config: StoreSettings): StoreSettings {
  const { databaseUrl, sqliteBusyTimeoutMs, databasePoolSize } = config;
  const { databaseStatementTimeoutMs, databaseConnectTimeoutMs } = config;
  return {
    databaseUrl,
    sqliteBusyTimeoutMs,
    databasePoolSize,
    databaseStatementTimeoutMs,
    databaseConnectTimeoutMs,
  };
}

/**
 * Batches of decisions written at once on PostgreSQL: half the pool, so that reads always find
 * a connection, and at most 4, so that under load batches grow rather than multiply (each
 * costs the same round trips and one commit whatever its size).
 */
export function groupCommitsInFlight(poolSize: number): number {
  return Math.max(1, Math.min(4, Math.floor(poolSize / 2)));
}
