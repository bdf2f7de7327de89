import cluster, { type Worker } from 'node:cluster';
import { pino } from 'pino';
import { checkSigningKey, refuseLogsBehind } from '../decision-log/index.js';
import { aggregateWorkersMetrics, metricsEnabled } from '../metrics/index.js';
import type { Config } from '../platform/config.js';
import { loadDataKey } from '../platform/data-key.js';
import { createDb } from '../platform/db.js';
import { checkReachable, migrateToLatest, migrationChecks } from '../platform/migrate.js';
import { registry } from './kinds.js';
import { serve } from './server.js';

/**
 * `serve` on `config.workers` processes (Node's cluster module) sharing one port: one process is
 * bound to one core, and the service's work per request is CPU. The primary applies migrations
 * once, starts the workers, starts a new one when one dies, and on SIGTERM or SIGINT passes the
 * signal on and exits once every worker has finished its requests.
 */
export async function serveOnWorkers(config: Config): Promise<void> {
  if (config.workers <= 1 || cluster.isWorker) {
    await serve(config);
    return;
  }
  const log = pino({ level: config.logLevel });
  const db = createDb(config);
  try {
    await checkReachable(db);
    const dataKey = loadDataKey(config, (details, message) => log.warn(details, message));
    await checkSigningKey(db, config, log);
    const applied = await migrateToLatest(
      db,
      dataKey,
      registry.migrations,
      migrationChecks(config),
    );
    if (applied.length > 0) log.info({ migrations: applied }, 'store schema brought up to date');
    await refuseLogsBehind(db, config.logCheckpointsFile);
  } finally {
    await db.destroy();
  }

  let stopping = false;
  const start = (): Worker => cluster.fork();
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) {
        log.info('stopped');
        process.exit(0);
      }
      return;
    }
    log.error({ pid: worker.process.pid, code, signal }, 'worker died; starting another');
    start();
  });
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down the workers');
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  // A scrape of /metrics answers every worker's metrics together (src/metrics/workers.ts).
  if (metricsEnabled(config)) aggregateWorkersMetrics();
  for (let i = 0; i < config.workers; i += 1) start();
  log.info({ workers: config.workers }, 'workers started');
}
