import { CompiledQuery, type KyselyPlugin, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customerVersionStates, pendingReads } from '../../src/decisions/pending-repository.js';
import { apiOf } from '../helpers/api.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { vacuumUntilAllVisible } from '../helpers/indexes.js';
import { publish, type SeededTenant, seedTemplate, seedTenant, unique } from '../helpers/seed.js';
import { postgresStore, stores } from '../helpers/stores.js';

describe.each(stores)("pending's reads on $name", (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let api: ReturnType<typeof apiOf>;

  beforeAll(async () => {
    t = await startTestApp(store);
    a = await seedTenant(t.db);
    api = apiOf(t.app, a.headers);
  });
  afterAll(async () => {
    await t.close();
  });

  it('look-ups asked together each get their own customer, on PostgreSQL one statement for them all', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const v = await publish(t.db, a.tenant.id, code);
    const given = [unique('g'), unique('g'), unique('g')];
    const rejected = [unique('r'), unique('r')];
    for (const customer of given) await api.decide(customer, v.consent_version_id, 'given');
    for (const customer of rejected) await api.decide(customer, v.consent_version_id, 'reject');
    const never = [unique('n'), unique('n'), unique('n')];
    const asked = [
      never[0],
      given[0],
      rejected[0],
      given[1],
      never[1],
      rejected[1],
      given[2],
      never[2],
    ];

    let statements = 0;
    const counting: KyselyPlugin = {
      transformQuery: ({ node }) => node,
      transformResult: async ({ result }) => {
        statements += 1;
        return result;
      },
    };
    const reads = pendingReads(t.db.withPlugin(counting), t.readers, 2);
    const tenant = a.tenant.id;
    const states = await Promise.all(
      asked.map((customer) =>
        reads.versionState(tenant, t.vault.lookup(tenant, customer ?? ''), v.consent_version_id),
      ),
    );
    expect(states.map((state) => state?.last_decision)).toEqual([
      undefined,
      'given',
      'reject',
      'given',
      undefined,
      'reject',
      'given',
      undefined,
    ]);
    // The same customer on another version has no state there.
    const other = await publish(t.db, a.tenant.id, code);
    expect(
      await reads.versionState(
        tenant,
        t.vault.lookup(tenant, given[0] ?? ''),
        other.consent_version_id,
      ),
    ).toBeUndefined();
    if (store.name === 'postgres') expect(statements).toBe(2);
    // An SQLite file reads on its reader threads, never on the main connection.
    if (store.name === 'sqlite') expect(statements).toBe(0);
  });
});

describe("pending's reads on PostgreSQL", () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp(postgresStore);
  });
  afterAll(async () => {
    await t.close();
  });

  it('read two indexes and no table row: the look-up carries the subject, the key the state', async () => {
    const a = await seedTenant(t.db);
    const api = apiOf(t.app, a.headers);
    const code = await seedTemplate(t.db, a.tenant.id);
    const v = await publish(t.db, a.tenant.id, code);
    const customers = [unique('c'), unique('c'), unique('c')];
    for (const customer of customers) await api.decide(customer, v.consent_version_id, 'given');
    // What a store's autovacuum does in time: the pages' rows are visible to every reader.
    await vacuumUntilAllVisible(t.db, ['subjects', 'customer_version_states']);
    const tenant = a.tenant.id;
    const asked = [...customers, unique('n')];
    const query = customerVersionStates.bind(t.db, {
      positions: asked.map((_, i) => i),
      tenantIds: asked.map(() => tenant),
      lookups: asked.map((customer) => t.vault.lookup(tenant, customer)),
      versionIds: asked.map(() => v.consent_version_id),
    });
    const plan = await t.db.connection().execute(async (db) => {
      // A three-row table is read whole by default: ask for the plan a large one gets.
      await sql`set enable_seqscan = off`.execute(db);
      await sql`set enable_bitmapscan = off`.execute(db);
      try {
        const explain = `explain (analyze, format json) ${query.sql}`;
        const { rows } = await db.executeQuery(CompiledQuery.raw(explain, [...query.parameters]));
        return JSON.stringify(rows);
      } finally {
        await sql`reset all`.execute(db);
      }
    });
    expect(scans(plan)).toEqual([
      { type: 'Index Only Scan', index: 'customer_version_states_pk', heapFetches: 0 },
      { type: 'Index Only Scan', index: 'subjects_lookup_uq', heapFetches: 0 },
    ]);
  });
});

/** The index scans of a JSON plan, by index name. */
function scans(plan: string): Array<{ type: string; index: string; heapFetches: number }> {
  const found: Array<{ type: string; index: string; heapFetches: number }> = [];
  JSON.parse(plan, (key, value) => {
    if (key === '' || typeof value !== 'object' || value === null) return value;
    const node = value as Record<string, unknown>;
    if (typeof node['Index Name'] === 'string')
      found.push({
        type: String(node['Node Type']),
        index: node['Index Name'],
        heapFetches: Number(node['Heap Fetches']),
      });
    return value;
  });
  return found.sort((x, y) => x.index.localeCompare(y.index));
}
