/**
 * How long `GET /api/v1/customers/{id}/evidence` takes for a customer with 1,000 events (700
 * decisions on two templates, 300 channel changes) in a log that holds other customers' records
 * too. The whole service in process, on an SQLite file, or on PostgreSQL with
 * `BENCH_DATABASE_URL` (a server whose user may create a database; one is made and dropped).
 *
 *   npx tsx bench/evidence-pack.ts
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx tsx bench/evidence-pack.ts
 *
 * Prints one JSON line: the store, the events, the pack's size and files, and the time of the
 * first request (which appends the customer's last leaves first) and the median of five more.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import pg from 'pg';
import { createProduct } from '../src/products/index.js';
import { startTestApp } from '../test/helpers/app.js';
import { publish, seedTemplate, seedTenant } from '../test/helpers/seed.js';
import type { TestStore } from '../test/helpers/stores.js';

const decisions = 700;
const channelChanges = 300;
const otherCustomers = 2_000;

const adminUrl = process.env.BENCH_DATABASE_URL;

const store: TestStore = adminUrl
  ? {
      name: 'postgres',
      async create() {
        const name = `bench_evidence_${randomBytes(6).toString('hex')}`;
        const admin = async (statement: string) => {
          const client = new pg.Client({ connectionString: adminUrl });
          await client.connect();
          await client.query(statement);
          await client.end();
        };
        await admin(`create database ${name}`);
        const url = new URL(adminUrl);
        url.pathname = `/${name}`;
        return {
          databaseUrl: url.toString(),
          drop: () => admin(`drop database ${name} with (force)`),
        };
      },
    }
  : {
      name: 'sqlite',
      async create() {
        const dir = mkdtempSync(join(tmpdir(), 'bench-evidence-'));
        return {
          databaseUrl: join(dir, 'consent.db'),
          drop: async () => rmSync(dir, { recursive: true, force: true }),
        };
      },
    };

const t = await startTestApp(store, { LOG_INTEGRATE_INTERVAL_MS: '200' });
try {
  const a = await seedTenant(t.db);
  const actor = { actorKind: 'operator', actor: 'bench', ip: 'local', userAgent: null } as const;
  await t.db.transaction().execute((trx) =>
    createProduct(trx, { ...actor, tenantId: a.tenant.id }, a.tenant.id, {
      code: 'savings',
      name: 'Savings',
    }),
  );
  const versions: string[] = [];
  for (let i = 0; i < 2; i++) {
    const code = await seedTemplate(t.db, a.tenant.id);
    versions.push((await publish(t.db, a.tenant.id, code)).consent_version_id);
  }
  const post = (customer: string, versionId: string, decision: string) =>
    t.app.inject({
      method: 'POST',
      url: `/api/v1/customers/${encodeURIComponent(customer)}/consents/decisions`,
      headers: a.headers,
      payload: { consent_version_id: versionId, decision },
    });
  const expectStatus = (status: number, body: string, wanted: number[]) => {
    if (!wanted.includes(status)) throw new Error(`answered ${status}: ${body}`);
  };
  for (let i = 0; i < otherCustomers; i++) {
    const r = await post(`other-${i}@bench.test`, versions[i % 2] as string, 'given');
    expectStatus(r.statusCode, r.body, [201]);
  }
  const customer = 'evidence-1000@bench.test';
  for (let i = 0; i < decisions; i++) {
    // given and withdraw in turn on each template: every one is a new record.
    const r = await post(customer, versions[i % 2] as string, i % 4 < 2 ? 'given' : 'withdraw');
    expectStatus(r.statusCode, r.body, [201]);
  }
  const channels = ['email', 'sms', 'push'];
  for (let i = 0; i < channelChanges; i++) {
    const channel = channels[i % 3] as string;
    const blocked = Math.floor(i / 3) % 2 === 0;
    const r = await t.app.inject({
      method: 'PUT',
      url: `/api/v1/customers/${encodeURIComponent(customer)}/channels/savings/${channel}`,
      headers: { ...a.headers, 'content-type': 'application/json' },
      payload: JSON.stringify({ blocked }),
    });
    expectStatus(r.statusCode, r.body, [201]);
  }
  const get = async () => {
    const started = performance.now();
    const r = await t.app.inject({
      method: 'GET',
      url: `/api/v1/customers/${encodeURIComponent(customer)}/evidence`,
      headers: a.headers,
    });
    const ms = performance.now() - started;
    expectStatus(r.statusCode, r.body, [200]);
    return { ms, bytes: r.rawPayload };
  };
  const first = await get();
  const times: number[] = [];
  for (let i = 0; i < 5; i++) times.push((await get()).ms);
  times.sort((x, y) => x - y);
  const files = Object.keys(unzipSync(first.bytes)).length;
  process.stdout.write(
    `${JSON.stringify({
      store: store.name,
      events: decisions + channelChanges,
      log_size: otherCustomers + decisions + channelChanges,
      pack_bytes: first.bytes.length,
      files,
      first_ms: Math.round(first.ms),
      median_ms: Math.round(times[2] as number),
      max_ms: Math.round(times[4] as number),
    })}\n`,
  );
} finally {
  await t.close();
}
