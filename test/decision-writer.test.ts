/**
 * The writer of decisions (src/decisions/writer.ts): on an SQLite file a thread with a connection
 * of its own, which commits the decisions that arrive together in one transaction; on PostgreSQL
 * a transaction each. Driven with real decisions on the real store.
 */
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DecisionAnswer } from '../src/decisions/idempotency.js';
import { answerDecision } from '../src/decisions/idempotency.js';
import type { DecisionRequest } from '../src/decisions/schemas.js';
import type { VersionWithCode } from '../src/templates/service.js';
import { startTestApp, type TestApp } from './helpers/app.js';
import { seedPublishedVersion, seedTenant, unique } from './helpers/seed.js';
import { storeFaults } from './helpers/store-faults.js';
import { stores } from './helpers/stores.js';

describe.each(stores)('the writer of decisions on $name', (store) => {
  let t: TestApp;
  let tenantId: string;
  let versionId: string;
  let version: VersionWithCode;

  beforeAll(async () => {
    t = await startTestApp(store);
    tenantId = (await seedTenant(t.db)).tenant.id;
    version = await seedPublishedVersion(t.db, tenantId);
    versionId = version.id;
  });
  afterAll(async () => {
    await t.close();
  });

  const context = () => ({
    tenantId,
    apiKeyId: 'writer-test-key',
    ip: '192.0.2.1',
    userAgent: 'writer-test',
  });
  const request = (decision: DecisionRequest['decision'] = 'given'): DecisionRequest => ({
    consent_version_id: versionId,
    decision,
  });
  /** A decision as the route hands it to the writer. */
  const decide = (customer: string, key?: string, body = request()) =>
    answerDecision(
      t.writer,
      { publishedById: async () => version },
      t.vault,
      context(),
      customer,
      body,
      key,
    );
  /** Customers with a decision stored, by the first decision's id. */
  const storedDecisions = async (ids: string[]) =>
    (await t.db.selectFrom('decisions').select('id').where('id', 'in', ids).execute())
      .map((r) => r.id)
      .sort();
  const idOf = (answer: DecisionAnswer) => {
    if (!('data' in answer.body)) throw new Error(`not recorded: ${JSON.stringify(answer.body)}`);
    return answer.body.data.decision_id;
  };

  it('decisions arriving together share commits on SQLite (one each on PostgreSQL), each answered 201 and stored', async () => {
    const before = t.writer.stats();
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => decide(unique(`together-${i}`))),
    );
    const after = t.writer.stats();
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 201));
    expect(after.units - before.units).toBe(100);
    if (store.name === 'sqlite') expect(after.commits - before.commits).toBeLessThan(10);
    else expect(after.commits - before.commits).toBe(100);
    expect(await storedDecisions(answers.map(idOf))).toHaveLength(100);
  });

  it('a decision that fails after it has written leaves the others that arrived with it stored, and stores nothing of its own', async () => {
    // A version without a number fails the decision after its new customer has been written.
    const broken = { ...version, version: null };
    const customers = ['a', 'b', 'c'].map((name) => unique(`after-write-${name}`));
    const jobOf = (customer: string, v: VersionWithCode) => ({
      version: v,
      context: context(),
      customer: { id: customer, lookup: t.vault.lookup(tenantId, customer) },
      request: request(),
      requestHash: 'not used without a key',
      idempotencyKey: undefined,
    });
    const results = await Promise.allSettled([
      t.writer.write(jobOf(customers[0]!, version)),
      t.writer.write(jobOf(customers[1]!, broken)),
      t.writer.write(jobOf(customers[2]!, version)),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((results[1] as PromiseRejectedResult).reason)).toContain('has no number');
    const ids = results.flatMap((r) => (r.status === 'fulfilled' ? [idOf(r.value)] : []));
    expect(await storedDecisions(ids)).toHaveLength(2);
    const lookups = customers.map((c) => t.vault.lookup(tenantId, c));
    const subjects = await t.db
      .selectFrom('subjects')
      .select('lookup')
      .where('lookup', 'in', lookups)
      .execute();
    expect(subjects.map((s) => s.lookup).sort()).toEqual([lookups[0], lookups[2]].sort());
  });

  it('a decision refused before it writes (its key reused with another body) fails alone, beside decisions of the same moment', async () => {
    const key = unique('key');
    const customer = unique('keyed');
    expect((await decide(customer, key)).status).toBe(201);
    const others = ['x', 'y'].map((name) => unique(`beside-${name}`));
    const results = await Promise.allSettled([
      decide(others[0]!),
      decide(customer, key, request('reject')),
      decide(others[1]!),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: '1010' });
    const ids = results.flatMap((r) => (r.status === 'fulfilled' ? [idOf(r.value)] : []));
    expect(await storedDecisions(ids)).toHaveLength(2);
  });

  it('a decision is committed by the time its answer comes', async () => {
    const id = idOf(await decide(unique('durable')));
    if (store.name !== 'sqlite') {
      expect(await storedDecisions([id])).toEqual([id]);
      return;
    }
    // Another connection to the file sees it: it is committed, not only in the writer's transaction.
    const other = new Database(t.config.databaseUrl, { readonly: true });
    try {
      expect(other.prepare('select id from decisions where id = ?').get(id)).toEqual({ id });
    } finally {
      other.close();
    }
  });

  it("when the store refuses writes, every decision of the batch is refused with the store's own error, and the writer works again once it accepts them", async () => {
    const fault = storeFaults(store).find((f) => f.writesOnly);
    if (!fault) throw new Error(`no write fault for ${store.name}`);
    // Enough customers that the subjects and decisions need new pages, which a full store refuses.
    const customers = Array.from({ length: 40 }, (_, i) => unique(`refused-${i}`));
    await fault.refuse(t);
    let results: PromiseSettledResult<DecisionAnswer>[];
    try {
      results = await Promise.allSettled(customers.map((customer) => decide(customer)));
    } finally {
      await fault.restore(t);
    }
    const codes = results.map((r) =>
      r.status === 'rejected' ? (r.reason as { code?: unknown }).code : r.value.status,
    );
    // A full store may still take the first few, on pages it has free.
    expect(codes.filter((code) => code !== 201 && code !== fault.code)).toEqual([]);
    expect(codes.filter((code) => code === fault.code).length).toBeGreaterThan(0);
    // A PostgreSQL session opened while the database was read-only stays so: each such session in
    // the pool fails one more decision, with the same error, and is replaced.
    const attempts = store.name === 'sqlite' ? 1 : t.config.databasePoolSize + 1;
    const refusedAfter: unknown[] = [];
    let after: DecisionAnswer | undefined;
    for (let i = 0; i < attempts && after === undefined; i += 1) {
      after = await decide(unique('after-refusal')).catch((e) => {
        refusedAfter.push((e as { code?: unknown }).code);
        return undefined;
      });
    }
    expect(after?.status).toBe(201);
    expect(refusedAfter.filter((code) => code !== fault.code)).toEqual([]);
  });
});
