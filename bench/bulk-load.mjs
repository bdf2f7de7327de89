// The load generator of `bulk-status`: `POST /api/v1/consents/status` with `ids` customer ids a
// request, from a few connections that each send their next request when the last is answered
// (a campaign tool asks, reads, asks again). Each request's ids are drawn anew: half from the
// loaded customers, half never seen, as for `pending`. The same protocol as bench/load.mjs:
// {"phase":"measuring"}, {"phase":"done"}, then the result as one JSON line, with p95 besides
// p50 and p99, exact from every request's latency.
// Usage: node bench/bulk-load.mjs '<json>' with {url, path, headers, body (with "{ids}"),
//   connections, warmupS, durationS, customers: {known, fresh, width}, ids}.
import { Agent, request } from 'node:http';

const config = JSON.parse(process.argv[2]);
const { known, fresh, width } = config.customers;
const agent = new Agent({ keepAlive: true, maxSockets: config.connections });

function pickCustomer() {
  if (known > 0 && Math.random() < 0.5) {
    return `c${String(Math.floor(Math.random() * known)).padStart(width, '0')}`;
  }
  return `f${String(Math.floor(Math.random() * fresh)).padStart(width, '0')}`;
}

function bodyOf() {
  const ids = Array.from({ length: config.ids }, pickCustomer);
  return config.body.replace('"{ids}"', JSON.stringify(ids));
}

/** One request; resolves with its status and latency in ms. */
function send() {
  const body = bodyOf();
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request(
      `${config.url}${config.path}`,
      {
        method: 'POST',
        agent,
        headers: { ...config.headers, 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode, ms: performance.now() - started }));
      },
    );
    req.on('error', () => resolve({ status: 0, ms: performance.now() - started }));
    req.end(body);
  });
}

async function run(seconds) {
  const until = performance.now() + seconds * 1000;
  const latencies = [];
  const statusCodes = {};
  let errors = 0;
  const began = performance.now();
  await Promise.all(
    Array.from({ length: config.connections }, async () => {
      while (performance.now() < until) {
        const { status, ms } = await send();
        if (status === 0) errors += 1;
        else statusCodes[status] = (statusCodes[status] ?? 0) + 1;
        latencies.push(ms);
      }
    }),
  );
  const durationS = (performance.now() - began) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (p) =>
    latencies[Math.min(latencies.length - 1, Math.ceil((p / 100) * latencies.length) - 1)] ?? 0;
  const non2xx = Object.entries(statusCodes)
    .filter(([code]) => !code.startsWith('2'))
    .reduce((sum, [, count]) => sum + count, 0);
  return {
    durationS,
    requests: latencies.length,
    rps: latencies.length / durationS,
    p50Ms: at(50),
    p95Ms: at(95),
    p99Ms: at(99),
    maxMs: latencies.at(-1) ?? 0,
    non2xx,
    errors,
    statusCodes,
  };
}

const warmup = config.warmupS > 0 ? await run(config.warmupS) : null;
process.stdout.write(`${JSON.stringify({ phase: 'measuring' })}\n`);
const before = process.cpuUsage();
const measured = await run(config.durationS);
const used = process.cpuUsage(before);
process.stdout.write(`${JSON.stringify({ phase: 'done' })}\n`);
process.stdout.write(
  `${JSON.stringify({ ...measured, loadCpu: (used.user + used.system) / 1e6 / measured.durationS, warmup })}\n`,
);
agent.destroy();
