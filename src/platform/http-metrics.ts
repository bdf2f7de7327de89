import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseHookHandler } from 'fastify';
import { Counter, Histogram, type Registry } from 'prom-client';
import { Tally } from './tally.js';

/** Seconds; from a cached `latest` (tens of µs) to a request held by a slow store. */
const durationBuckets = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
];

/** The label a request that matched no route is counted under: never its raw URL. */
export const unmatchedRoute = 'unmatched';

interface Series {
  /** Requests answered, given to `count` at each scrape. */
  answered: Tally;
  count: Counter.Internal;
  duration: Histogram.Internal<'method' | 'route' | 'status_code'>;
}

/**
 * `http_requests_total` and `http_request_duration_seconds` by method, route pattern and status,
 * observed once the answer is sent. Each route gets its own `onResponse` hook knowing its
 * pattern, and keeps its labelled series by method and status once looked up: a request costs
 * two map reads, an addition and an observation. Call it before the routes are registered.
 */
/** Counts one answer of a route pattern: its method, status and time to answer (ms). */
export type AnswerObserver = (method: string, statusCode: number, elapsedMs: number) => void;

/**
 * The observer of each route pattern, for the answers sent without Fastify (src/app/hot-reads.ts):
 * the same series as the route's own hook.
 */
export type RouteObservers = (route: string) => AnswerObserver;

export function installHttpMetrics(app: FastifyInstance, registry: Registry): RouteObservers {
  const labelNames = ['method', 'route', 'status_code'] as const;
  const all: Series[] = [];
  const count = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status.',
    labelNames,
    registers: [registry],
    collect() {
      for (const series of all) series.answered.flushTo(series.count);
    },
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving a request to sending its answer, by method, route pattern and status.',
    labelNames,
    buckets: durationBuckets,
    registers: [registry],
  });

  const observers = new Map<string, AnswerObserver>();

  /** The observer of one route pattern (or of the requests that matched none), made once. */
  function observerOf(route: string): AnswerObserver {
    const made = observers.get(route);
    if (made) return made;
    const byMethod = new Map<string, Map<number, Series>>();
    const observe: AnswerObserver = (method, statusCode, elapsedMs) => {
      let byStatus = byMethod.get(method);
      if (!byStatus) {
        byStatus = new Map();
        byMethod.set(method, byStatus);
      }
      let series = byStatus.get(statusCode);
      if (!series) {
        const labels = { method, route, status_code: String(statusCode) };
        series = {
          answered: new Tally(),
          count: count.labels(labels),
          duration: duration.labels(labels),
        };
        all.push(series);
        byStatus.set(statusCode, series);
      }
      series.answered.add();
      series.duration.observe(elapsedMs / 1000);
    };
    observers.set(route, observe);
    return observe;
  }

  app.addHook('onRoute', (route) => {
    const observeAnswer = observerOf(route.url);
    const observe = (request: FastifyRequest, reply: FastifyReply) =>
      observeAnswer(request.method, reply.statusCode, reply.elapsedTime);
    const hook: onResponseHookHandler = (request, reply, done) => {
      // A route may hand a request on as not found (a missing static file): counted as such.
      if (!request.is404) observe(request, reply);
      done();
    };
    const own = route.onResponse;
    route.onResponse = own === undefined ? [hook] : [...[own].flat(), hook];
  });
  // The requests no route matched (the 404 handler's, the 405s): one series, whatever the URL.
  const unmatched = observerOf(unmatchedRoute);
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) unmatched(request.method, reply.statusCode, reply.elapsedTime);
    done();
  });
  return observerOf;
}
