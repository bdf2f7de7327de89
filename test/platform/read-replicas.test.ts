/**
 * `pending`, a customer's history and as-of, bulk status, receipt exports and the back-office's
 * lists and CSV downloads of decisions, visitors' cookie decisions and controls on a real
 * streaming replica (`DATABASE_READ_URL`, docs/scaling.md, "Read replicas"): a PostgreSQL
 * primary and a hot standby made from its base backup, streaming its WAL, both started by the
 * test from the binaries the install brings. Reads go to the standby (its own statistics count
 * them); a client reads its own decision at once, every time; a standby whose replay is paused
 * is skipped for the primary, with no stale answer; a standby stopped under load costs no
 * request an error, and serves again once it is back.
 */
import { parse } from 'csv-parse/sync';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/platform/db.js';
import { createDb } from '../../src/platform/db.js';
import { choose, standardChoice } from '../backoffice/cookies-support.js';
import { signedIn } from '../backoffice/support.js';
import { apiOf } from '../helpers/api.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedPublishedSystem } from '../helpers/cookies.js';
import {
  type PostgresServer,
  startPostgresServer,
  startStandby,
} from '../helpers/postgres-server.js';
import { parseScrape } from '../helpers/prometheus.js';
import { publish, type SeededTenant, seedTemplate, seedTenant, unique } from '../helpers/seed.js';
import type { TestStore } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';

const metricsToken = 'replica-metrics-token-0123456789';

interface Health {
  replicas?: Array<{ name: string; state: string; served: number; skipped: number }>;
}

describe('pending on a streaming replica', () => {
  let primary: PostgresServer;
  let standby: PostgresServer;
  let t: TestApp;
  let standbyDb: Db;
  let a: SeededTenant;
  let api: ReturnType<typeof apiOf>;
  let code = '';
  let versionId = '';

  beforeAll(async () => {
    primary = await startPostgresServer();
    standby = await startStandby(primary);
    const store: TestStore = {
      name: 'postgres',
      create: async () => ({ databaseUrl: primary.url, drop: async () => {} }),
    };
    t = await startTestApp(store, {
      DATABASE_READ_URL: standby.url,
      DATABASE_READ_MAX_WAIT_MS: String(budget(200)),
      METRICS_TOKEN: metricsToken,
    });
    standbyDb = createDb({
      databaseUrl: standby.url,
      sqliteBusyTimeoutMs: 0,
      databasePoolSize: 1,
      databaseStatementTimeoutMs: 0,
      databaseConnectTimeoutMs: 2_000,
    });
    a = await seedTenant(t.db);
    api = apiOf(t.app, a.headers);
    code = await seedTemplate(t.db, a.tenant.id);
    versionId = (await publish(t.db, a.tenant.id, code)).consent_version_id;
  }, budget(120_000));
  afterAll(async () => {
    await standbyDb?.destroy();
    await t?.close();
    await standby?.remove();
    await primary?.remove();
  });

  const replicaOf = async () => {
    const health = (await t.app.inject({ method: 'GET', url: '/api/health' })).json() as Health;
    const [replica] = health.replicas ?? [];
    if (!replica) throw new Error('no replica in /api/health');
    return replica;
  };
  /** Read-only transactions the standby has run on the service's database. */
  const standbyTransactions = async () =>
    Number(
      (
        await sql<{
          n: string;
        }>`select xact_commit::text as n from pg_stat_database where datname = current_database()`.execute(
          standbyDb,
        )
      ).rows[0]?.n,
    );
  const scrape = async () =>
    parseScrape(
      (
        await t.app.inject({
          method: 'GET',
          url: '/metrics',
          headers: { authorization: `Bearer ${metricsToken}` },
        })
      ).body,
    );
  const accepted = async (customer: string) => {
    const answer = await api.pending(customer, code);
    expect(answer.statusCode).toBe(200);
    return (answer.json() as { data: { accepted: boolean } }).data.accepted;
  };

  it('serves pending from the replica, and each client reads its own decision at once', async () => {
    // The standby answers reads and refuses writes: a real replica.
    const inRecovery = await sql<{ r: boolean }>`select pg_is_in_recovery() as r`.execute(
      standbyDb,
    );
    expect(inRecovery.rows[0]?.r).toBe(true);
    const before = await replicaOf();
    const transactionsBefore = await standbyTransactions();
    let stale = 0;
    for (let i = 0; i < 30; i += 1) {
      const customer = unique('reader');
      expect(await accepted(customer)).toBe(false);
      expect((await api.decide(customer, versionId, 'given')).statusCode).toBe(201);
      if (!(await accepted(customer))) stale += 1;
    }
    expect(stale).toBe(0);
    const after = await replicaOf();
    expect(after.state).toBe('up');
    expect(after.served - before.served).toBeGreaterThan(0);
    expect(after.name).toBe(`127.0.0.1:${standby.port}/postgres`);
    const metrics = await scrape();
    const labels = { replica: after.name };
    expect(metrics.value('consent_read_replica_up', labels)).toBe(1);
    expect(
      metrics.value('consent_read_replica_batches_total', { ...labels, outcome: 'served' }),
    ).toBeGreaterThanOrEqual(after.served);
    // The standby's own statistics count the reads it served (its backends report them at most
    // every 10 s while idle: PostgreSQL's PGSTAT_IDLE_INTERVAL).
    await expect
      .poll(standbyTransactions, { timeout: budget(30_000), interval: 500 })
      .toBeGreaterThanOrEqual(transactionsBefore + (after.served - before.served));
  });

  it("serves a customer's history and as-of from the replica, each with the decision just made; a refused read is the answer", async () => {
    const before = await replicaOf();
    const history = (customer: string) =>
      t.app.inject({
        method: 'GET',
        url: `/api/v1/customers/${customer}/consents`,
        headers: a.headers,
      });
    for (let i = 0; i < 10; i += 1) {
      const customer = unique('history');
      const decided = await api.decide(customer, versionId, i % 2 === 0 ? 'given' : 'reject');
      expect(decided.statusCode).toBe(201);
      const id = (decided.json() as { data: { decision_id: string } }).data.decision_id;
      const read = await history(customer);
      expect(read.statusCode).toBe(200);
      const listed = (read.json() as { data: { history: Array<{ decision_id: string }> } }).data
        .history;
      expect(listed.map((d) => d.decision_id)).toEqual([id]);
      const asOf = await t.app.inject({
        method: 'GET',
        url: `/api/v1/customers/${customer}/consents/templates/${code}/as-of?at=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
        headers: a.headers,
      });
      expect(asOf.statusCode).toBe(200);
      expect(
        (asOf.json() as { data: { decision: { decision_id: string } | null } }).data.decision
          ?.decision_id,
      ).toBe(id);
    }
    const after = await replicaOf();
    expect(after.served - before.served).toBeGreaterThanOrEqual(20);
    // A read the service refuses is refused on the replica as on the primary, which it spares.
    const refused = await t.app.inject({
      method: 'GET',
      url: `/api/v1/customers/${unique('history')}/consents?cursor=not-a-cursor`,
      headers: a.headers,
    });
    expect(refused.statusCode).toBe(400);
    const still = await replicaOf();
    expect(still.state).toBe('up');
    expect(still.skipped).toBe(after.skipped);
  });

  it("serves bulk status and a receipt's exports from the replica, each with the decision just made", async () => {
    const before = await replicaOf();
    for (let i = 0; i < 5; i += 1) {
      const customer = unique('status');
      const decided = await api.decide(customer, versionId, 'given');
      expect(decided.statusCode).toBe(201);
      const id = (decided.json() as { data: { decision_id: string } }).data.decision_id;
      const status = await t.app.inject({
        method: 'POST',
        url: '/api/v1/consents/status',
        headers: { ...a.headers, 'content-type': 'application/json' },
        payload: JSON.stringify({ template_code: code, customer_ids: [customer, unique('never')] }),
      });
      expect(status.statusCode).toBe(200);
      const customers = (
        status.json() as {
          data: {
            customers: Array<{ accepted: boolean; last_decision: { decision_id: string } | null }>;
          };
        }
      ).data.customers;
      expect(customers.map((c) => [c.accepted, c.last_decision?.decision_id ?? null])).toEqual([
        [true, id],
        [false, null],
      ]);
      const iso = await t.app.inject({
        method: 'GET',
        url: `/api/v1/decisions/${id}/receipt/iso-27560?wait=true`,
        headers: a.headers,
      });
      expect(iso.statusCode).toBe(200);
      // The consent record it wraps is the decision's (docs/proof.md, "Receipt exports").
      expect(iso.body).toContain(`"urn:uuid:${id}"`);
    }
    const after = await replicaOf();
    expect(after.served - before.served).toBeGreaterThanOrEqual(10);
    expect(after.skipped).toBe(before.skipped);
  });

  it("serves the back-office's Decisions list and its CSV exports from the replica, each with the decision just made", async () => {
    const admin = await signedIn(t.app, a.tenant.email);
    const before = await replicaOf();
    for (let i = 0; i < 3; i += 1) {
      const customer = unique('listed');
      const decided = await api.decide(customer, versionId, 'given');
      expect(decided.statusCode).toBe(201);
      const id = (decided.json() as { data: { decision_id: string } }).data.decision_id;
      const list = await admin.get(`/backoffice/decisions?customer=${customer}`);
      expect(list.statusCode).toBe(200);
      expect(list.body).toContain(`/decisions/${id}"`);
      for (const path of [
        `/backoffice/decisions.csv?customer=${customer}`,
        `/backoffice/exports/decisions.csv?template=${code}`,
      ]) {
        const csv = await admin.get(path);
        expect(csv.statusCode).toBe(200);
        const rows = parse(csv.body, { columns: true }) as Array<{ decision_id: string }>;
        expect(rows.map((row) => row.decision_id)).toContain(id);
      }
    }
    const after = await replicaOf();
    expect(after.served - before.served).toBeGreaterThanOrEqual(9);
    expect(after.skipped).toBe(before.skipped);
    // Looking was recorded, on the primary: once per list and per download.
    const recorded = await sql<{ n: string }>`select count(*)::text as n from audit_log
      where tenant_id = ${a.tenant.id} and action in ('decisions.browsed', 'export.decisions')`.execute(
      t.db,
    );
    expect(Number(recorded.rows[0]?.n)).toBe(9);
  });

  it("serves the back-office's cookie decisions list, its CSV and the controls download from the replica, each with the record just made", async () => {
    const admin = await signedIn(t.app, a.tenant.email);
    const site = await seedPublishedSystem(t.db, a.tenant.id);
    const before = await replicaOf();
    for (let i = 0; i < 3; i += 1) {
      const choice = await choose(t.app, site, 'accept-all', standardChoice(true));
      const list = await admin.get(`/backoffice/cookies/decisions?decision=${choice}`);
      expect(list.statusCode).toBe(200);
      expect(list.body).toContain(choice);
      const csv = await admin.get(`/backoffice/cookies/decisions.csv?decision=${choice}`);
      expect(csv.statusCode).toBe(200);
      const choices = parse(csv.body, { columns: true }) as Array<{ decision_id: string }>;
      expect(choices.map((row) => row.decision_id)).toEqual([choice]);
      const channel = await t.app.inject({
        method: 'PUT',
        url: `/api/v1/customers/${unique('controlled')}/channels/general/email`,
        headers: { ...a.headers, 'content-type': 'application/json' },
        payload: JSON.stringify({ blocked: true }),
      });
      expect(channel.statusCode).toBe(201);
      const change = (channel.json() as { data: { record_id: string } }).data.record_id;
      const controls = await admin.get('/backoffice/exports/controls.csv');
      expect(controls.statusCode).toBe(200);
      const changes = parse(controls.body, { columns: true }) as Array<{ change_id: string }>;
      expect(changes.map((row) => row.change_id)).toContain(change);
    }
    // A read each: the list's page, the one page of the choices' CSV, and a page of each kind of
    // control (channel changes and partner blocks at least).
    const after = await replicaOf();
    expect(after.served - before.served).toBeGreaterThanOrEqual(12);
    expect(after.skipped).toBe(before.skipped);
    const recorded = await sql<{ n: string }>`select count(*)::text as n from audit_log
      where tenant_id = ${a.tenant.id} and action in ('export.cookie_decisions', 'export.controls')`.execute(
      t.db,
    );
    expect(Number(recorded.rows[0]?.n)).toBe(6);
  });

  it('a replica whose replay is paused is skipped: the primary answers, never a stale read', async () => {
    await sql`select pg_wal_replay_pause()`.execute(standbyDb);
    try {
      const customer = unique('paused');
      expect((await api.decide(customer, versionId, 'given')).statusCode).toBe(201);
      expect(await accepted(customer)).toBe(true);
      const replica = await replicaOf();
      expect(replica.state).toBe('behind');
      expect(replica.skipped).toBeGreaterThan(0);
    } finally {
      await sql`select pg_wal_replay_resume()`.execute(standbyDb);
    }
  });

  it('the replica stopped under load costs no error, and serves again once it is back', async () => {
    // Through Fastify alone: the fast path's own retry through Fastify would hide a failed read.
    const direct = apiOf(t.app, a.headers, 'inject');
    const customers = Array.from({ length: 8 }, () => unique('load'));
    let done = false;
    let requests = 0;
    let afterStop = 0;
    let stopped = false;
    let errors = 0;
    let stale = 0;
    const client = async (customer: string) => {
      for (let round = 0; !done; round += 1) {
        const decision = round % 2 === 0 ? 'given' : 'reject';
        const decided = await direct.decide(customer, versionId, decision);
        if (decided.statusCode !== 201) errors += 1;
        const answer = await direct.pending(customer, code);
        requests += 2;
        if (stopped) afterStop += 1;
        if (answer.statusCode !== 200) errors += 1;
        // A `reject` is a decision on the latest version too: accepted either way once seen.
        else if (!(answer.json() as { data: { accepted: boolean } }).data.accepted) stale += 1;
      }
    };
    const load = Promise.all(customers.map(client));
    // Under load, the standby shuts down (fast: its connections are cut), and the load goes on.
    await expect.poll(() => requests, { timeout: budget(20_000) }).toBeGreaterThan(100);
    await standby.stop();
    stopped = true;
    await expect.poll(() => afterStop, { timeout: budget(20_000) }).toBeGreaterThan(100);
    done = true;
    await load;
    expect(errors).toBe(0);
    expect(stale).toBe(0);
    const down = await replicaOf();
    expect(['down', 'behind']).toContain(down.state);
    expect((await scrape()).value('consent_read_replica_up', { replica: down.name })).toBe(0);

    await standby.start();
    const served = (await replicaOf()).served;
    await expect
      .poll(
        async () => {
          await accepted(customers[0] ?? '');
          return (await replicaOf()).served;
        },
        { timeout: budget(20_000), interval: 200 },
      )
      .toBeGreaterThan(served);
    expect((await replicaOf()).state).toBe('up');
  });
});
