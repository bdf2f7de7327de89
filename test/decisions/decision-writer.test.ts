/**
 * The writer of decisions (src/decisions/writer.ts): on an SQLite file a thread with a connection
 * of its own, which commits the decisions that arrive together in one transaction; on PostgreSQL
 * group commit, the same orchestration (writes.ts, run by the generic recorder) with set-based statements. Driven with real decisions on the
 * real store.
 */
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerOf, type DecisionAnswer } from '../../src/decisions/answer.js';
import type { DecisionRequest } from '../../src/decisions/schemas.js';
import { decide as decideWith } from '../../src/decisions/service.js';
// No template here has a rule of who may decide: nothing is ever held.
import type { DecisionJob, DecisionOutcome } from '../../src/decisions/writes.js';
import { statementCache } from '../../src/platform/sqlite-statements.js';
import type { VersionWithCode } from '../../src/templates/service.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { storedLookup } from '../helpers/schema-history.js';
import { seedPublishedVersion, seedTenant, unique } from '../helpers/seed.js';
import { storeFaults } from '../helpers/store-faults.js';
import { stores } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';

/** The API key the decisions name: an id, a UUID as the service's are. */
const writerKeyId = randomUUID();

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
    apiKeyId: writerKeyId,
    ip: '192.0.2.1',
    userAgent: 'writer-test',
  });
  const request = (decision: DecisionRequest['decision'] = 'given'): DecisionRequest => ({
    consent_version_id: versionId,
    decision,
  });
  /** A decision as the route takes it, answered as the route answers it. */
  const decide = async (customer: string, key?: string, body = request()) =>
    answerOf(
      (await decideWith(
        t.writer,
        {
          publishedById: async () => version,
          validityMonths: async () => null,
          dataCategories: async () => [],
          representation: async () => undefined,
        },
        t.vault,
        context(),
        customer,
        body,
        key,
      )) as DecisionOutcome,
    );
  /** A job handed to the writer as it is, answered as the route answers it. */
  const write = async (job: DecisionJob) => answerOf(await t.writer.write(job));
  /** Customers with a decision stored, by the first decision's id. */
  const storedDecisions = async (ids: string[]) =>
    (await t.db.selectFrom('decisions').select('id').where('id', 'in', ids).execute())
      .map((r) => r.id)
      .sort();
  const idOf = (answer: DecisionAnswer) => {
    if (!('data' in answer.body)) throw new Error(`not recorded: ${JSON.stringify(answer.body)}`);
    return answer.body.data.decision_id;
  };

  it('decisions arriving together share commits, each answered 201 and stored', async () => {
    const before = t.writer.stats();
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => decide(unique(`together-${i}`))),
    );
    const after = t.writer.stats();
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 201));
    expect(after.units - before.units).toBe(100);
    expect(after.commits - before.commits).toBeLessThan(10);
    expect(await storedDecisions(answers.map(idOf))).toHaveLength(100);
  });

  /** A decision as the writer takes it, on the given version. */
  const jobOf = (customer: string, v: VersionWithCode, decision: DecisionRequest['decision']) => ({
    version: v,
    context: context(),
    customer: { id: customer, lookup: t.vault.lookup(tenantId, customer) },
    request: { consent_version_id: v.id, decision },
    requestHash: 'not used without a key',
    idempotencyKey: undefined,
  });
  /** The customer's stored history on the version's template, oldest first. */
  const historyOf = async (customer: string) => {
    const lookup = t.vault.lookup(tenantId, customer);
    return t.db
      .selectFrom('decisions as d')
      .innerJoin('subjects as s', (j) =>
        j.onRef('s.tenant_id', '=', 'd.tenant_id').onRef('s.id', '=', 'd.subject_id'),
      )
      .select(['d.seq', 'd.decision'])
      .where('s.lookup', '=', await storedLookup(t.db, lookup))
      .orderBy('d.seq')
      .execute();
  };

  /** What the work answered, and in how many commits it was written. */
  const committing = async <T>(work: () => Promise<T>): Promise<[T, number]> => {
    const before = t.writer.stats().commits;
    const result = await work();
    return [result, t.writer.stats().commits - before];
  };

  it("one customer's decisions of the same moment are ruled in the order they came, each seeing the one before, in one commit", async () => {
    const customer = unique('in-order');
    const [answers, commits] = await committing(() =>
      Promise.all(
        (['withdraw', 'given', 'withdraw', 'withdraw', 'reject'] as const).map((decision) =>
          write(jobOf(customer, version, decision)),
        ),
      ),
    );
    // Together, not redone one at a time (which would hide a batch that ruled them wrongly).
    expect(commits).toBe(1);
    // Contract section 5: nothing to withdraw before a `given`, and after a withdrawal.
    expect(answers.map((a) => a.status)).toEqual([409, 201, 201, 409, 201]);
    expect(await historyOf(customer)).toEqual([
      { seq: 1, decision: 'given' },
      { seq: 2, decision: 'withdraw' },
      { seq: 3, decision: 'reject' },
    ]);
    const state = await t.db
      .selectFrom('customer_template_states')
      .select(['decision_count', 'last_decision'])
      .where('template_id', '=', version.template_id)
      .where('last_decision_id', '=', idOf(answers[4]!))
      .execute();
    expect(state).toEqual([{ decision_count: 3, last_decision: 'reject' }]);
  });

  it("each decision of a batch is ruled on its own customer's standing, in one commit", async () => {
    const [agreed, never, fresh] = ['own-agreed', 'own-never', 'own-fresh'].map(unique) as [
      string,
      string,
      string,
    ];
    expect((await write(jobOf(agreed, version, 'given'))).status).toBe(201);
    expect((await write(jobOf(never, version, 'reject'))).status).toBe(201);
    const [answers, commits] = await committing(() =>
      Promise.all([
        write(jobOf(agreed, version, 'withdraw')),
        write(jobOf(never, version, 'withdraw')),
        write(jobOf(fresh, version, 'given')),
      ]),
    );
    expect(commits).toBe(1);
    // Contract section 5: a withdrawal needs a `given` before it.
    expect(answers.map((a) => a.status)).toEqual([201, 409, 201]);
    expect(await historyOf(agreed)).toEqual([
      { seq: 1, decision: 'given' },
      { seq: 2, decision: 'withdraw' },
    ]);
    expect(await historyOf(never)).toEqual([{ seq: 1, decision: 'reject' }]);
    expect(await historyOf(fresh)).toEqual([{ seq: 1, decision: 'given' }]);
  });

  it('without re-consent, the same decision twice at the same moment answers the first (200), and another is refused (409), in one commit', async () => {
    const noReconsent = { ...version, allow_reconsent: 0 };
    const customer = unique('no-reconsent');
    const [[first, again, other], commits] = await committing(() =>
      Promise.all(
        (['given', 'given', 'reject'] as const).map((decision) =>
          write(jobOf(customer, noReconsent, decision)),
        ),
      ),
    );
    expect(commits).toBe(1);
    expect([first?.status, again?.status, other?.status]).toEqual([201, 200, 409]);
    expect(idOf(again!)).toBe(idOf(first!));
    expect(again?.body).toEqual(first?.body);
    expect(await historyOf(customer)).toEqual([{ seq: 1, decision: 'given' }]);
  });

  it('one idempotency key sent twice at the same moment stores one decision in one commit, and the second gets the first answer', async () => {
    const key = unique('twice');
    const customer = unique('keyed-twice');
    const [[first, second], commits] = await committing(() =>
      Promise.all([decide(customer, key), decide(customer, key)]),
    );
    expect(commits).toBe(1);
    expect([first.status, second.status]).toEqual([201, 201]);
    expect([first.replayed, second.replayed]).toEqual([false, true]);
    expect(second.body).toEqual(first.body);
    const stored = await t.db
      .selectFrom('decisions')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('idempotency_key', '=', key)
      .execute();
    expect(stored).toEqual([{ id: idOf(first) }]);
  });

  it('a decision that fails after it has written leaves the others that arrived with it stored, and stores nothing of its own', async () => {
    // A version without a number fails the decision after its new customer has been written.
    const broken = { ...version, version: null };
    const customers = ['a', 'b', 'c'].map((name) => unique(`after-write-${name}`));
    const results = await Promise.allSettled([
      write(jobOf(customers[0]!, version, 'given')),
      write(jobOf(customers[1]!, broken, 'given')),
      write(jobOf(customers[2]!, version, 'given')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((results[1] as PromiseRejectedResult).reason)).toContain('has no number');
    const ids = results.flatMap((r) => (r.status === 'fulfilled' ? [idOf(r.value)] : []));
    expect(await storedDecisions(ids)).toHaveLength(2);
    const lookups = customers.map((c) => t.vault.lookup(tenantId, c));
    const subjects = await t.db
      .selectFrom('subjects')
      .select('lookup')
      .where('lookup', 'in', await Promise.all(lookups.map((l) => storedLookup(t.db, l))))
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
      // Its statements bind and read ids in the store's form, as the service's do.
      const found = statementCache(other)('select id from decisions where id = ?').all([id]);
      expect(found).toEqual([{ id }]);
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

describe.each(stores.filter((s) => s.name === 'postgres'))(
  'group commit on $name, against a writer that takes its locks in another order',
  (store) => {
    let t: TestApp;
    let tenantId: string;
    let version: VersionWithCode;

    beforeAll(async () => {
      t = await startTestApp(store);
      tenantId = (await seedTenant(t.db)).tenant.id;
      version = await seedPublishedVersion(t.db, tenantId);
    });
    afterAll(async () => {
      await t.close();
    });

    const decide = async (customer: string, decision: DecisionRequest['decision'], key?: string) =>
      answerOf(
        (await decideWith(
          t.writer,
          {
            publishedById: async () => version,
            validityMonths: async () => null,
            dataCategories: async () => [],
            representation: async () => undefined,
          },
          t.vault,
          { tenantId, apiKeyId: writerKeyId, ip: '192.0.2.1', userAgent: 'writer-test' },
          customer,
          { consent_version_id: version.id, decision },
          key,
        )) as DecisionOutcome,
      );

    it('a batch PostgreSQL ends to break a deadlock is written again, and answered 201', async () => {
      const customer = unique('deadlocked');
      expect((await decide(customer, 'given')).status).toBe(201);
      const key = unique('key');
      // The two locks a decision with an idempotency key takes, lowest hash first (locks.ts).
      const names = [
        `subject:${tenantId}:${t.vault.lookup(tenantId, customer)}`,
        `idempotency:${tenantId}:${key}`,
      ];
      const { rows } = await sql<{ name: string }>`
        select k as name from unnest(${names}::text[]) as k order by hashtextextended(k, 0)`.execute(
        t.db,
      );
      const [first, second] = rows.map((row) => row.name);
      const lock = (name: string | undefined) =>
        sql`select pg_advisory_xact_lock(hashtextextended(${name}, 0))`;
      const answer = await t.db.connection().execute(async (other) => {
        // Another writer holds the second lock, and only breaks deadlocks after a minute: the
        // batch, waiting since before, is the one PostgreSQL ends (after its 1 s).
        await sql`begin`.execute(other);
        await sql`set local deadlock_timeout = '60s'`.execute(other);
        await lock(second).execute(other);
        const decided = decide(customer, 'withdraw', key);
        const waiting = async () =>
          Number(
            (
              await sql<{ n: number | string }>`
                select count(*) as n from pg_locks
                where locktype = 'advisory' and not granted
                  and database = (select oid from pg_database where datname = current_database())`.execute(
                other,
              )
            ).rows[0]?.n,
          );
        await expect.poll(waiting, { timeout: budget(5_000) }).toBeGreaterThan(0);
        // It now holds the first and waits for the second: asking for the first closes the cycle.
        await lock(first).execute(other);
        await sql`commit`.execute(other);
        return decided;
      });
      expect(answer.status).toBe(201);
      const stored = await t.db
        .selectFrom('decisions')
        .select('decision')
        .where('tenant_id', '=', tenantId)
        .where('decision', '=', 'withdraw')
        .execute();
      expect(stored).toHaveLength(1);
    });
  },
);
