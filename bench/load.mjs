// The load generator: autocannon in a process of its own, pinned to the load core by the caller.
// Plain JavaScript so that this process runs bare Node (no tsx loader on the load core).
// Usage: node bench/load.mjs '<json>'  with {url, path, method, headers, body, connections,
//   warmupS, durationS, customers: {known, fresh, width}, rate?} (rate: requests per second in
//   all, instead of as many as the server answers); `{customer}` in path is replaced per
//   request, and each `{uuid}` in path or body by a fresh random UUID. Prints {"phase":"measuring"} when
//   the warm-up ends, {"phase":"done"} when the measured part ends, then the result as one JSON
//   line.
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';

const config = JSON.parse(process.argv[2]);
const { known, fresh, width } = config.customers;

/** Half known customers (with a stored history), half never seen; all of them fresh when none. */
function pickCustomer() {
  if (known > 0 && Math.random() < 0.5) {
    return `c${String(Math.floor(Math.random() * known)).padStart(width, '0')}`;
  }
  return `f${String(Math.floor(Math.random() * fresh)).padStart(width, '0')}`;
}

const spread = config.path.includes('{customer}');
const freshIds = config.body?.includes('{uuid}') ?? false;
const freshPath = config.path.includes('{uuid}');
const options = {
  url: config.url,
  connections: config.connections,
  ...(config.rate === undefined ? {} : { overallRate: config.rate }),
  method: config.method,
  headers: config.headers,
  ...(config.body === undefined ? {} : { body: config.body }),
  requests: [
    {
      setupRequest(request) {
        request.path = spread ? config.path.replace('{customer}', pickCustomer()) : config.path;
        if (freshPath) request.path = request.path.replaceAll('{uuid}', () => randomUUID());
        if (freshIds) request.body = config.body.replaceAll('{uuid}', () => randomUUID());
        return request;
      },
    },
  ],
};

function summary(result, cpuSeconds) {
  return {
    durationS: result.duration,
    requests: result.requests.total,
    rps: result.requests.total / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    // Socket errors, timeouts included.
    errors: result.errors,
    statusCodes: Object.fromEntries(
      Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count]),
    ),
    loadCpu: cpuSeconds === undefined ? undefined : cpuSeconds / result.duration,
  };
}

// A separate warm-up run (rather than autocannon's `warmup` option) so that the caller learns
// when measuring starts and this process's CPU use covers the measured part only.
const warmup =
  config.warmupS > 0 ? await autocannon({ ...options, duration: config.warmupS }) : null;
process.stdout.write(`${JSON.stringify({ phase: 'measuring' })}\n`);
const before = process.cpuUsage();
const result = await autocannon({ ...options, duration: config.durationS });
const used = process.cpuUsage(before);
process.stdout.write(`${JSON.stringify({ phase: 'done' })}\n`);
process.stdout.write(
  `${JSON.stringify({
    ...summary(result, (used.user + used.system) / 1e6),
    warmup: warmup && summary(warmup),
  })}\n`,
);
