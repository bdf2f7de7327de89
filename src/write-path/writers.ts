import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyBaseLogger } from 'fastify';
import { sql } from 'kysely';
import type { ChannelChangeWriter } from '../channels/index.js';
import type { CookieChoiceWriter } from '../cookies/index.js';
import {
  type Integrator,
  idleIntegrator,
  leavesWaiting,
  startIntegrator,
} from '../decision-log/index.js';
import type { DecisionOutcome, DecisionWriterHandle } from '../decisions/index.js';
import type { PartnerBlockWriter } from '../partner-blocks/index.js';
import type { Config } from '../platform/config.js';
import type { Db, StoreSettings } from '../platform/db.js';
import { createGroupCommit } from '../platform/group-commit.js';
import { isPostgresUrl } from '../platform/postgres.js';
import { sqlitePath } from '../platform/sqlite.js';
import { startWriterThread, type WriterThread } from '../platform/writer-thread.js';
import type { NoteSigner } from '../proof/index.js';
import type { SubjectVault } from '../subjects/index.js';
import { type HotJob, type HotOutcome, recordHotWrites } from './batch.js';

/** What the writer thread is started with (see `sqlite-writer.ts`): plain data only. */
export interface WriterThreadData {
  store: StoreSettings;
  dataKey: Uint8Array;
  signingKey: Pick<Config, 'logSigningKey' | 'logSigningKeyFile' | 'publicBaseUrl'>;
  logLevel: string;
  logIntegrateIntervalMs: number;
}

/** Who writes the hot path's records: decisions, cookie choices, and the decision log's appends. */
export interface Writers {
  decisions: DecisionWriterHandle;
  /** Visitors' cookie choices, in the same batches as the decisions. */
  cookies: CookieChoiceWriter;
  /** Customers' channel changes, in the same batches. */
  channels: ChannelChangeWriter;
  /** Partner blocks on customers' decisions, in the same batches. */
  partnerBlocks: PartnerBlockWriter;
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
    const hot = hotWriterOnStore(
      db,
      vault,
      postgres ? groupCommitsInFlight(config.databasePoolSize) : 1,
      options.onBatch,
    );
    return {
      ...handles(hot),
      integrator: () => integrator ?? idleIntegrator,
      async start() {
        integrator = startIntegrator(db, signer, log, config.logIntegrateIntervalMs);
      },
      close: async () => integrator?.stop(),
    };
  }
  const data = writerThreadData(config, vault, options);
  const thread = startWriterThread<HotJob, HotOutcome>(
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

/** The one writer of the hot path, whichever store: batches of decisions and cookie choices. */
interface HotWriter {
  submit(job: HotJob): Promise<HotOutcome>;
  failing(): boolean;
  stats(): { units: number; commits: number };
  execute(statement: string): Promise<void>;
}

/** The writer as each feature sees it: its own jobs in, its own outcomes out. */
function handles(
  hot: HotWriter,
): Pick<Writers, 'decisions' | 'cookies' | 'channels' | 'partnerBlocks'> {
  return {
    decisions: {
      write: (job) => hot.submit({ kind: 'decision', job }) as Promise<DecisionOutcome>,
      failing: hot.failing,
      stats: hot.stats,
      execute: hot.execute,
    },
    cookies: {
      write: (job) =>
        hot.submit({ kind: 'cookie', job }) as ReturnType<CookieChoiceWriter['write']>,
    },
    channels: {
      write: (job) =>
        hot.submit({ kind: 'channel', job }) as ReturnType<ChannelChangeWriter['write']>,
    },
    partnerBlocks: {
      write: (job) =>
        hot.submit({ kind: 'partner', job }) as ReturnType<PartnerBlockWriter['write']>,
    },
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
  inFlight: number,
  onCommit?: (jobs: number) => void,
): HotWriter {
  const group = createGroupCommit<HotJob, HotOutcome>(
    db,
    (trx, jobs) => recordHotWrites(trx, vault, jobs),
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
 * same `recordHotWrites`, in one transaction with one fsync each, and the event loop never waits
 * for the disk.
 */
function hotWriterOnThread(thread: WriterThread<HotJob, HotOutcome>): HotWriter {
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
