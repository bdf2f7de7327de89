// The PostgreSQL baseline for `decisions`: N clients, each inserting decision-shaped rows into a
// copy of the decisions table in a loop, one INSERT (one transaction, one commit) at a time.
// It is what the database alone does for a durable insert, without HTTP, the service's reads,
// advisory lock and state upserts. Plain JavaScript so it runs bare Node on the load core.
// Usage: node bench/pg-insert-loop.mjs '<json>'  with {url, table, clients, warmupS, durationS,
//   row: {tenant_id, template_id, consent_version_id, version, api_key_id}}
// Prints {"phase":"measuring"} when the warm-up ends, {"phase":"done"} when the measured part
// ends, then the result as one JSON line.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { v7 } from 'uuid';

const config = JSON.parse(process.argv[2]);
const { row } = config;
const text =
  `insert into ${config.table} (tenant_id, id, subject_id, template_id, consent_version_id, ` +
  'version, decision, seq, decided_at, api_key_id, personal, idempotency_key) ' +
  'values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, null)';
// As many bytes as the service's sealed fields (nonce, JSON, tag): the database stores them
// alike, whatever they hold.
const fields = { customer_id: 'b0-0', ip: '127.0.0.1', user_agent: 'bench-insert-loop' };
const personal = randomBytes(12 + JSON.stringify(fields).length + 16).toString('base64');

let phase = 'warmup';
let stopped = false;
let inserts = 0;
let errors = 0;
const latencies = [];

async function client() {
  const db = new pg.Client({ connectionString: config.url });
  await db.connect();
  // Each row is a customer (subject) of its own, seq 1, so rows never collide on the history key.
  while (!stopped) {
    const started = performance.now();
    try {
      await db.query({
        name: 'insert-decision',
        text,
        values: [
          row.tenant_id,
          v7(),
          v7(),
          row.template_id,
          row.consent_version_id,
          row.version,
          'given',
          1,
          new Date().toISOString(),
          row.api_key_id,
          personal,
        ],
      });
      if (phase === 'measure' && !stopped) {
        inserts++;
        latencies.push(performance.now() - started);
      }
    } catch {
      if (phase === 'measure') errors++;
    }
  }
  await db.end();
}

const sleep = (s) => new Promise((resolve) => setTimeout(resolve, s * 1000));
const clients = Array.from({ length: config.clients }, () => client());
await sleep(config.warmupS);
phase = 'measure';
process.stdout.write(`${JSON.stringify({ phase: 'measuring' })}\n`);
const before = process.cpuUsage();
const started = performance.now();
await sleep(config.durationS);
stopped = true;
const durationS = (performance.now() - started) / 1000;
const used = process.cpuUsage(before);
// Before the clients disconnect: their backends' CPU is counted while they still exist.
process.stdout.write(`${JSON.stringify({ phase: 'done' })}\n`);
await Promise.all(clients);
latencies.sort((a, b) => a - b);
const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
process.stdout.write(
  `${JSON.stringify({
    durationS,
    requests: inserts,
    rps: inserts / durationS,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    non2xx: 0,
    errors,
    statusCodes: {},
    loadCpu: (used.user + used.system) / 1e6 / durationS,
  })}\n`,
);
