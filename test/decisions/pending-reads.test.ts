import type { KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pendingReads } from '../../src/decisions/pending-repository.js';
import { apiOf } from '../helpers/api.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { publish, type SeededTenant, seedTemplate, seedTenant, unique } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';

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
