import type { Config } from '../platform/config.js';
import type { QueryObserver } from '../platform/db.js';
import { isPostgresUrl } from '../platform/postgres.js';
import { traceQuery } from '../platform/tracing.js';
import type { Metrics } from './instruments.js';

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
