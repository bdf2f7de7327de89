// A webhook receiver for the bench, in a process of its own on the load core: it verifies each
// delivery's signature with the reference library, answers 204, and keeps, per webhook-id, how
// long after its decision the event arrived.
// Usage: node bench/webhook-receiver.mjs '<json>' with {port, secret}. Prints {"listening":true}
// once it listens; GET /summary?since=<ISO> answers {unique, attempts, invalid, p50Ms, p99Ms,
// maxMs} over the decisions made at or after `since`.
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

const { port, secret } = JSON.parse(process.argv[2]);
const webhook = new Webhook(secret);
/** webhook-id -> [decided_at in ms, first arrival in ms] */
const arrivals = new Map();
let attempts = 0;
let invalid = 0;

function summary(since) {
  const waits = [];
  for (const [decidedAt, arrivedAt] of arrivals.values()) {
    if (decidedAt >= since) waits.push(arrivedAt - decidedAt);
  }
  waits.sort((a, b) => a - b);
  const at = (q) => waits[Math.min(waits.length - 1, Math.floor(q * waits.length))] ?? 0;
  return {
    unique: waits.length,
    attempts,
    invalid,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    maxMs: waits.at(-1) ?? 0,
  };
}

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url?.startsWith('/summary')) {
    const since = Date.parse(new URL(req.url, 'http://x').searchParams.get('since') ?? '') || 0;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(summary(since)));
    return;
  }
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const arrivedAt = Date.now();
    attempts += 1;
    const body = Buffer.concat(chunks).toString('utf8');
    try {
      const event = webhook.verify(body, req.headers);
      const id = req.headers['webhook-id'];
      if (!arrivals.has(id)) arrivals.set(id, [Date.parse(event.data.decided_at), arrivedAt]);
      res.writeHead(204).end();
    } catch {
      invalid += 1;
      res.writeHead(400).end();
    }
  });
});
server.listen(port, '127.0.0.1', () =>
  process.stdout.write(`${JSON.stringify({ listening: true })}\n`),
);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
