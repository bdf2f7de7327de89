import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import {
  type Integrator,
  idleIntegrator,
  leavesWaiting,
  startIntegrator,
} from '../decision-log/index.js';
import type { Config } from '../platform/config.js';
import type { Db, StoreSettings } from '../platform/db.js';
import { createGroupCommit } from '../platform/group-commit.js';
import { isPostgresUrl } from '../platform/postgres.js';
import { sqlitePath } from '../platform/sqlite.js';
import { threadModules } from '../platform/thread-entry.js';
import { startWriterThread, type WriterThread } from '../platform/writer-thread.js';
import type { NoteSigner } from '../proof/index.js';
import type { KindWriter, RecordKind, Registry } from '../record-kinds/index.js';
import type { SubjectVault } from '../subjects/index.js';
import { recordBatch, type WriteJob } from './batch.js';

/** What the writer thread is started with (see `sqlite-writer.ts`): plain data only. */
export interface WriterThreadData {
  /** The URL of the module that declares the registry of kinds (its `registry` export). */
  registry: string;
  store: StoreSettings;
  dataKey: Uint8Array;
  signingKey: Pick<
    Config,
    'logSigningKey' | 'logSigningKeyFile' | 'publicBaseUrl' | 'logCheckpointsFile'
  >;
  logLevel: string;
  logIntegrateIntervalMs: number;
}

/** Who writes the hot path's records, every kind's, and the decision log's appends. */
export interface Writers {
  /** A kind's writer: its jobs in, its outcomes out, in the batches every kind shares. */
  of<Job, Outcome>(kind: RecordKind): KindWriter<Job, Outcome>;
  /** True while the store refuses writes (the health check). */
  failing(): boolean;
  /** Jobs committed, in how many commits. */
  stats(): { units: number; commits: number };
  /** Runs one statement on the connection that writes (maintenance, fault drills). */
  execute(statement: string): Promise<void>;
  /** Started by `start` (the app's `onReady`). */
  integrator(): Integrator;
  start(): Promise<void>;
  /** Lets the writes in flight finish, then stops the integrator and the thread. */
  close(): Promise<void>;
}

/**
 * Every store writes the hot path's records the same way, in batches through `recordBatch`;
 * what differs is where. On an SQLite file, a writer thread with a connection of its own writes them and
 * appends to the decision log (`sqlite-writer.ts`): the main thread never waits for the file's
 * lock or its fsync. It starts with the first decision, or as soon as leaves wait to be appended.
 * On PostgreSQL the decisions that arrive together share a transaction (group commit), as they
 * do, one batch at a time, on an SQLite store in memory; both on the main thread's store.
 */
export function createWriters(
  config: Config,
  db: Db,
  vault: SubjectVault,
  registry: Registry,
  signer: NoteSigner,
  log: FastifyBaseLogger,
  options: { logLevel: string; onBatch?: (decisions: number) => void },
): Writers {
  const postgres = isPostgresUrl(config.databaseUrl);
  if (postgres || sqlitePath(config.databaseUrl) === ':memory:') {
    let integrator: Integrator | undefined;
    const hot = hotWriterOnStore(
      db,
      vault,
      registry,
      postgres ? writeBatchesInFlight(config) : 1,
      options.onBatch,
    );
    return {
      ...handles(hot),
      integrator: () => integrator ?? idleIntegrator,
      async start() {
        integrator = startIntegrator(
          db,
          signer,
          log,
          config.logIntegrateIntervalMs,
          undefined,
          config.logCheckpointsFile,
        );
      },
      close: async () => integrator?.stop(),
    };
  }
  const [entry = writerThreadEntry.href, module = registry.module] = threadModules([
    writerThreadEntry.href,
    registry.module,
  ]);
  const data = { ...writerThreadData(config, vault, registry, options), registry: module };
  const thread = startWriterThread<WriteJob, unknown>(db, new URL(entry), data, options.onBatch);
  const integrator: Integrator = { kick: () => thread.task('integrate'), stop: async () => {} };
  // While the thread is not running, the main thread looks for queued leaves (an erasure's,
  // or those an earlier run left) at the integrator's pace, and starts it for them.
  let watch: NodeJS.Timeout | undefined;
  const startForLeaves = async () => {
    if (!thread.running() && (await leavesWaiting(db))) await integrator.kick();
  };
  return {
    ...handles(hotWriterOnThread(thread)),
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

/** The one writer of the hot path, whichever store: batches of every kind's jobs. */
interface HotWriter {
  submit(job: WriteJob): Promise<unknown>;
  failing(): boolean;
  stats(): { units: number; commits: number };
  execute(statement: string): Promise<void>;
}

/** The writer as each kind sees it, and what the service asks of the store's writer. */
function handles(hot: HotWriter): Pick<Writers, 'of' | 'failing' | 'stats' | 'execute'> {
  return {
    of: <Job, Outcome>(kind: RecordKind): KindWriter<Job, Outcome> => ({
      write: (job) => hot.submit({ kind: kind.name, job }) as Promise<Outcome>,
    }),
    failing: hot.failing,
    stats: hot.stats,
    execute: hot.execute,
  };
}

/**
 * On the service's own store: what arrives together is written as one batch, in one transaction
 * with one commit. On PostgreSQL `inFlight` batches at most at once, each on a pool connection of
 * its own; on an SQLite store in memory (which another thread cannot open), one at a time.
 */
function hotWriterOnStore(
  db: Db,
  vault: SubjectVault,
  registry: Registry,
  inFlight: number,
  onCommit?: (jobs: number) => void,
): HotWriter {
  const group = createGroupCommit<WriteJob, unknown>(
    db,
    (trx, jobs) => recordBatch(trx, vault, registry, jobs),
    inFlight,
    onCommit,
  );
  return {
    submit: group.submit,
    failing: group.failing,
    stats: group.stats,
    execute: async (statement) => {
      await sql.raw(statement).execute(db);
    },
  };
}

/**
 * An SQLite file: the store's writer thread (src/write-path/sqlite-writer.ts) writes the batches with the
 * same `recordBatch`, in one transaction with one fsync each, and the event loop never waits
 * for the disk.
 */
function hotWriterOnThread(thread: WriterThread<WriteJob, unknown>): HotWriter {
  return {
    submit: thread.submit,
    failing: thread.failing,
    stats: thread.stats,
    execute: thread.execute,
  };
}

// Beside this file: `.ts` from source, `.js` once built.
const here = import.meta.url;
export const writerThreadEntry = new URL(`./sqlite-writer${extname(fileURLToPath(here))}`, here);

/** What the thread is told: plain data, only what it needs of the configuration. */
export function writerThreadData(
  config: Config,
  vault: SubjectVault,
  registry: Registry,
  options: { logLevel: string },
): WriterThreadData {
  return {
    registry: registry.module,
    store: storeSettings(config),
    dataKey: vault.dataKey,
    signingKey: {
      logSigningKey: config.logSigningKey,
      logSigningKeyFile: config.logSigningKeyFile,
      publicBaseUrl: config.publicBaseUrl,
      logCheckpointsFile: config.logCheckpointsFile,
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
 * Batches written at once on PostgreSQL (`DATABASE_WRITE_BATCHES`, default 2), leaving a
 * connection of the pool to reads where there is more than one. Each batch pays its statements'
 * round trips, parsing and planning once, whatever its size, so under load fewer at once means
 * larger batches and less of the database a record; one at a time leaves a database with cores
 * to spare idle between round trips (bench/notebook.md, "fewer batches at once").
 */
export function writeBatchesInFlight(settings: {
  databaseWriteBatches: number;
  databasePoolSize: number;
}): number {
  return Math.max(1, Math.min(settings.databaseWriteBatches, settings.databasePoolSize - 1));
}
