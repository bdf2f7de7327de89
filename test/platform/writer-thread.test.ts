/**
 * The SQLite writer thread (src/platform/writer-thread.ts): it checkpoints the WAL itself, and
 * when it dies the decisions it held fail as a store fault (answered 503 1009), none answered as
 * recorded is lost, and the next decision starts a new thread. Driven with the service's own
 * thread script on a real store.
 */
import { statSync } from 'node:fs';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import type { DecisionOutcome } from '../../src/decisions/writes.js';
import { isStoreUnavailable } from '../../src/platform/db.js';
import { startWriterThread, type WriterThread } from '../../src/platform/writer-thread.js';
import type { VersionWithCode } from '../../src/templates/service.js';
import type { WriteJob } from '../../src/write-path/batch.js';
import { writerThreadData, writerThreadEntry } from '../../src/write-path/writers.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedPublishedVersion, seedTenant, unique } from '../helpers/seed.js';
import { sqliteStore } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';

describe('the SQLite writer thread', () => {
  let t: TestApp;
  let tenantId: string;
  let version: VersionWithCode;
  let thread: WriterThread<WriteJob, DecisionOutcome>;

  beforeAll(async () => {
    t = await startTestApp(sqliteStore);
    tenantId = (await seedTenant(t.db)).tenant.id;
    version = await seedPublishedVersion(t.db, tenantId);
    thread = startWriterThread(
      t.db,
      writerThreadEntry,
      writerThreadData(t.config, t.vault, registry, { logLevel: 'silent' }),
    );
  });
  afterAll(async () => {
    await thread.close();
    await t.close();
  });

  const job = (customer: string): WriteJob => ({
    kind: 'decision',
    job: {
      version,
      context: { tenantId, apiKeyId: 'thread-test', ip: '192.0.2.1', userAgent: null },
      customer: { id: customer, lookup: t.vault.lookup(tenantId, customer) },
      request: { consent_version_id: version.id, decision: 'given' },
      requestHash: 'not used without a key',
      idempotencyKey: undefined,
    },
  });
  const idOf = (outcome: DecisionOutcome) =>
    'decision' in outcome && 'decision_id' in outcome.decision
      ? (outcome as Extract<DecisionOutcome, { decision: unknown }>).decision.decision_id
      : 'not recorded';

  it('folds the WAL into the database file itself, between batches, and the main connection no longer does on its commits', async () => {
    expect((await thread.submit(job(unique('warm')))).kind).toBe('recorded');
    const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(
      t.db,
    );
    expect(rows[0]?.wal_autocheckpoint).toBe(0);
    const before = statSync(t.config.databaseUrl).size;
    const answers = await Promise.all(
      Array.from({ length: 300 }, (_, i) => thread.submit(job(unique(`wal-${i}`)))),
    );
    expect(answers.filter((a) => a.kind !== 'recorded')).toEqual([]);
    // The decisions are in the WAL; the file itself grows once a checkpoint has copied them.
    const deadline = Date.now() + budget(5_000);
    while (statSync(t.config.databaseUrl).size === before && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(statSync(t.config.databaseUrl).size).toBeGreaterThan(before);
  });

  it('stopped while it holds decisions: each is recorded or fails as a store fault, and the next decision starts a new thread', async () => {
    expect((await thread.submit(job(unique('first')))).kind).toBe('recorded');
    expect(thread.running()).toBe(true);
    const held = Array.from({ length: 200 }, (_, i) => thread.submit(job(unique(`held-${i}`))));
    // Handed over on the next turn of the event loop, then stopped while it works on them.
    await new Promise((resolve) => setImmediate(resolve));
    await thread.terminate();
    const results = await Promise.allSettled(held);
    expect(thread.running()).toBe(false);
    const failures = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
    expect(failures.length, 'no decision was held when the thread stopped').toBeGreaterThan(0);
    expect(failures.filter((error) => !isStoreUnavailable(error))).toEqual([]);
    const recorded = results.flatMap((r) => (r.status === 'fulfilled' ? [idOf(r.value)] : []));
    if (recorded.length > 0) {
      const stored = await t.db
        .selectFrom('decisions')
        .select('id')
        .where('id', 'in', recorded)
        .execute();
      expect(stored).toHaveLength(recorded.length);
    }

    expect((await thread.submit(job(unique('after')))).kind).toBe('recorded');
    expect(thread.running()).toBe(true);
  });
});
