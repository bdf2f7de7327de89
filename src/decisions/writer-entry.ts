/**
 * The SQLite writer thread: opens its own connection to the store and writes the decisions the
 * main thread hands it (see `writer.ts` and src/platform/writer-loop.ts).
 */
import { workerData } from 'node:worker_threads';
import { createDb } from '../platform/db.js';
import { serveWrites } from '../platform/writer-loop.js';
import { createVault } from '../subjects/vault.js';
import type { DecisionJob } from './idempotency.js';
import { writeDecision } from './idempotency.js';
import type { DecisionWriterData } from './writer.js';

const { store, dataKey } = workerData as DecisionWriterData;
const vault = createVault(Buffer.from(dataKey));
await serveWrites<DecisionJob>(createDb(store), (trx, job) => writeDecision(trx, vault, job));
