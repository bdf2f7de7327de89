import type { FastifyInstance } from 'fastify';
import { Counter, Histogram, type Registry } from 'prom-client';

/** Seconds; from a cached `latest` (tens of µs) to a request held by a slow store. */
const durationBuckets = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
];

/** The label a request that matched no route is counted under: never its raw URL. */
export const unmatchedRoute = 'unmatched';

interface Series {
  count: Counter.Internal;
  duration: Histogram.Internal<'method' | 'route' | 'status_code'>;
}

/**
 * `http_requests_total` and `http_request_duration_seconds` by method, route pattern and status,
 * observed once the answer is sent. The labelled series of a route and status are looked up once
 * and kept, so a request costs two map reads, an increment and an observation.
 */
export function installHttpMetrics(app: FastifyInstance, registry: Registry): void {
  const labelNames = ['method', 'route', 'status_code'] as const;
  const count = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status.',
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving a request to sending its answer, by method, route pattern and status.',
    labelNames,
    buckets: durationBuckets,
    registers: [registry],
  });
  const byRoute = new Map<string, Map<number, Series>>();

  function seriesOf(method: string, route: string, status: number): Series {
    const key = `${method} ${route}`;
    let byStatus = byRoute.get(key);
    if (!byStatus) {
      byStatus = new Map();
      byRoute.set(key, byStatus);
    }
    let series = byStatus.get(status);
    if (!series) {
      const labels = { method, route, status_code: String(status) };
      series = { count: count.labels(labels), duration: duration.labels(labels) };
      byStatus.set(status, series);
    }
    return series;
  }

  app.addHook('onResponse', (request, reply, done) => {
    // A request no route matched (the 404 handler's) is one series, whatever its URL.
    const route = request.is404 ? unmatchedRoute : (request.routeOptions.url ?? unmatchedRoute);
    const series = seriesOf(request.method, route, reply.statusCode);
    series.count.inc();
    series.duration.observe(reply.elapsedTime / 1000);
    done();
  });
}
