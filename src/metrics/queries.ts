import type { Config } from '../platform/config.js';
import { createDb, type Db, type QueryObserver } from '../platform/db.js';
import { isPostgresUrl } from '../platform/postgres.js';
import { traceQuery } from '../platform/tracing.js';
import { metricsEnabled } from './guard.js';
import { createMetrics, type Metrics } from './instruments.js';

/**
 * What watches the store's statements (`createDb`'s observer): the query-time histogram when
 * metrics are on, a span per statement when traces are; nothing at all (no timing) otherwise.
 */
export function storeObserver(
  config: Pick<Config, 'databaseUrl' | 'tracing'>,
  metrics: Metrics | undefined,
): QueryObserver | undefined {
  const span = config.tracing
    ? traceQuery(isPostgresUrl(config.databaseUrl) ? 'postgresql' : 'sqlite')
    : undefined;
  const histogram = metrics?.storeQuery;
  if (!span && !histogram) return undefined;
  return (event) => {
    histogram?.observe(event.queryDurationMillis / 1000);
    span?.(event);
  };
}

/**
 * The store, with the metrics (when `METRICS_*` is set) made first so that they time its
 * statements: what `serve`, and the tests' apps as `serve` does, start from.
 */
export function observedStore(config: Config): { db: Db; metrics: Metrics | undefined } {
  const metrics = metricsEnabled(config) ? createMetrics() : undefined;
  return { db: createDb(config, storeObserver(config, metrics)), metrics };
}
