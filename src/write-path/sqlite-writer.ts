/**
 * The SQLite store's writer thread (started by `writers.ts`): it opens a connection of its own
 * and does the writes of the hot path there, off the event loop that answers requests: every
 * kind's jobs the main thread hands it, in batches with one commit each (`recordBatch`, as on
 * every store), and the decision log's appends. See docs/architecture.md, "A write on an SQLite
 * file: the writer thread".
 */
import { workerData } from 'node:worker_threads';
import { pino } from 'pino';
// By path, not through decision-log's index.ts: a thread starts with the first write, and the
// folder's whole surface (exports, schemas, routes' helpers) would slow that write.
import { startIntegrator } from '../decision-log/integrator.js';
import { loadSigningKey } from '../decision-log/signing-key.js';
import { createDb } from '../platform/db.js';
import { serveWrites } from '../platform/writer-loop.js';
import type { Registry } from '../record-kinds/index.js';
import { createVault } from '../subjects/index.js';
import { recordBatch, type WriteJob } from './batch.js';
import type { WriterThreadData } from './writers.js';

/**
 * Decisions wait while the thread appends to the log: a quarter of the usual batch keeps that wait
 * near 10 ms (at 1,000 leaves, the decisions' p99 was 70 to 80 ms against 50 at 250 to 350).
 */
const leavesPerAppend = 250;

const data = workerData as WriterThreadData;
const log = pino({ level: data.logLevel }, pino.destination({ fd: 1, sync: true }));
// The kinds' declarations are code, which a thread cannot be handed: it imports the module
// that declares the registry, as the main thread did.
const { registry } = (await import(data.registry)) as { registry: Registry };
const db = createDb(data.store);
const vault = createVault(Buffer.from(data.dataKey));
const integrator = startIntegrator(
  db,
  loadSigningKey(data.signingKey, log),
  log,
  data.logIntegrateIntervalMs,
  leavesPerAppend,
  data.signingKey.logCheckpointsFile,
);
await serveWrites(db, (trx, jobs) => recordBatch(trx, vault, registry, jobs as WriteJob[]), {
  tasks: { integrate: () => integrator.kick() },
  beforeClose: () => integrator.stop(),
});
