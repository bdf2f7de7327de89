/**
 * PostgreSQL's keys of the control kinds' states (`channel_states_pk`,
 * `partner_block_states_pk`) leading with the tenant, as 0.13.0 and the releases before it made
 * them, or without it (`(subject_id, product_id, channel)`, `(decision_id, partner_code)`:
 * migration 0065): the service runs on either, since its upserts name each key by its name.
 * One script of control changes (a channel blocked, blocked again and allowed; a partner
 * blocked and allowed on a decision) answers byte for byte alike on both but for ids and times,
 * each state holds its key's last change, and the receipts verify. Migration 0065 converts a
 * store with states in it: the states and the reads of them stay as they were, the script runs
 * on after it, and it runs again as a no-op; SQLite's store is left as it was.
 */
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { createPartner } from '../../src/partners/index.js';
import { loadConfig } from '../../src/platform/config.js';
import { createDb, type Db } from '../../src/platform/db.js';
import * as controlStateKeysWithoutTenant from '../../src/platform/migrations/0065-control-state-keys-without-tenant.js';
import { findStoreSetting } from '../../src/platform/store-settings-repository.js';
import { createProduct } from '../../src/products/index.js';
import { parseVerifierKey, verifyReceipt } from '../../src/proof/index.js';
import { publishOutsideReview } from '../../src/templates/index.js';
import { apiOf } from '../helpers/api.js';
import { placeheld } from '../helpers/api-session.js';
import { json, startTestApp, type TestApp, testLogKeys } from '../helpers/app.js';
import {
  keyColumns,
  migratedKeepingSqliteSchema,
  postgresTenantControlStateKeysStore,
} from '../helpers/schema-history.js';
import { seedTemplate, seedTenant } from '../helpers/seed.js';
import { postgresStore, sqliteStore, useBareStore } from '../helpers/stores.js';
import { existingStore } from '../helpers/uuid-ids.js';

const keysWithTenant = {
  channel_states_pk: ['tenant_id', 'subject_id', 'product_id', 'channel'],
  partner_block_states_pk: ['tenant_id', 'decision_id', 'partner_code'],
  partner_block_states_subject_idx: ['tenant_id', 'subject_id'],
};
const keysWithout = {
  channel_states_pk: ['subject_id', 'product_id', 'channel'],
  partner_block_states_pk: ['decision_id', 'partner_code'],
  partner_block_states_subject_idx: ['subject_id'],
};
const keysOf = async (db: Db) =>
  Object.fromEntries(
    await Promise.all(
      Object.keys(keysWithTenant).map(async (index) => [index, await keyColumns(db, index)]),
    ),
  );

const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const time = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g;

/** The script's answers (ids and times held in place), and whether its receipts verify. */
async function script(t: TestApp) {
  const a = await seedTenant(t.db);
  const by = {
    tenantId: a.tenant.id,
    actorKind: 'operator',
    actor: 'test',
    ip: 'local',
    userAgent: null,
  } as const;
  await t.db.transaction().execute(async (trx) => {
    await createProduct(trx, by, a.tenant.id, { code: 'savings', name: 'Savings' });
    await createPartner(trx, by, a.tenant.id, { code: 'zeta-bank', name: 'Zeta Bank' });
  });
  const code = await seedTemplate(t.db, a.tenant.id);
  const version = await t.db
    .transaction()
    .execute((trx) =>
      publishOutsideReview(
        trx,
        by,
        a.tenant.id,
        code,
        { tag: '1.0', content_html: '<p>Sharing with partners</p>' },
        { partners: ['zeta-bank'] },
      ),
    );
  const decided = await apiOf(t.app, a.headers).decide('ann', version.id, 'given');
  const decision = json(decided).data.decision_id as string;
  const call = (method: 'GET' | 'PUT', url: string, payload?: unknown) =>
    t.app.inject({
      method,
      url,
      headers: { ...a.headers, 'content-type': 'application/json' },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
  const channel = '/api/v1/customers/ann/channels/savings/email';
  const partner = `/api/v1/customers/ann/consents/decisions/${decision}/partners/zeta-bank`;
  const responses = [
    decided,
    await call('PUT', channel, { blocked: true }),
    await call('PUT', channel, { blocked: true }),
    await call('PUT', channel, { blocked: false }),
    await call('GET', '/api/v1/customers/ann/channels'),
    await call('PUT', partner, { blocked: true }),
    await call('PUT', partner, { blocked: false }),
    await call('GET', `/api/v1/customers/ann/consents/decisions/${decision}/partners`),
  ];
  const key = parseVerifierKey(testLogKeys.verifierKey);
  if (!key.ok) throw new Error(key.reason);
  const receipts: boolean[] = [];
  for (const [kind, response] of [
    ['channel-changes', responses[3]!],
    ['partner-block-changes', responses[6]!],
  ] as const) {
    const receipt = await call(
      'GET',
      `/api/v1/${kind}/${json(response).data.record_id}/receipt?wait=true`,
    );
    receipts.push(
      receipt.statusCode === 200 && verifyReceipt(json(receipt), [key.value], registry.formats).ok,
    );
  }
  const states = async (table: 'channel_states' | 'partner_block_states', change: string) =>
    (
      await sql<{ states: number; blocked: number; last: boolean }>`select count(*)::int as states,
          max(blocked)::int as blocked, bool_and(change_id = ${change}) as last
        from ${sql.table(table)} where tenant_id = ${a.tenant.id}`.execute(t.db)
    ).rows[0];
  return {
    answers: placeheld(
      responses.map((r) =>
        `${r.statusCode} ${r.body}`.replaceAll(code, '<code>').replace(time, '<time>'),
      ),
    ).map((line) => line.replace(uuid, '<id>')),
    receipts,
    channelStates: await states('channel_states', json(responses[3]!).data.record_id),
    partnerStates: await states('partner_block_states', json(responses[6]!).data.record_id),
  };
}

describe("PostgreSQL control kinds' states keyed with and without the tenant", () => {
  let withTenant: TestApp;
  let without: TestApp;
  beforeAll(async () => {
    withTenant = await startTestApp(postgresTenantControlStateKeysStore);
    without = await startTestApp(postgresStore);
  });
  afterAll(async () => {
    await withTenant?.close();
    await without?.close();
  });

  it('one script of control changes answers alike on both; each state holds its last change', async () => {
    expect(await keysOf(withTenant.db)).toEqual(keysWithTenant);
    expect(await keysOf(without.db)).toEqual(keysWithout);
    const keyed = await script(withTenant);
    const unkeyed = await script(without);
    expect(unkeyed.answers).toEqual(keyed.answers);
    // A change recorded answers 201; the same block again changes nothing and answers 200.
    expect(keyed.answers.map((line) => line.slice(0, 3))).toEqual([
      '201',
      '201',
      '200',
      '201',
      '200',
      '201',
      '201',
      '200',
    ]);
    for (const run of [keyed, unkeyed]) {
      expect(run.receipts).toEqual([true, true]);
      // One state each, moved by every change to it: allowed again, by the last change.
      expect(run.channelStates).toEqual({ states: 1, blocked: 0, last: true });
      expect(run.partnerStates).toEqual({ states: 1, blocked: 0, last: true });
    }
  });
});

describe('migration 0065 on a PostgreSQL store with control states in it', () => {
  it("takes the tenant out of the states' keys; the states stay, the changes run on", async () => {
    // The store as 0.13.0 leaves it (0065 recorded as applied, so that the test app, which
    // migrates on its start, leaves it so).
    const created = await postgresTenantControlStateKeysStore.createMigrated!();
    const old = await startTestApp(existingStore(created.databaseUrl));
    const before = await script(old);
    const statesOf = async (db: Db) => ({
      channels: (await sql`select * from channel_states order by subject_id, channel`.execute(db))
        .rows,
      partners: (
        await sql`select * from partner_block_states order by decision_id, partner_code`.execute(db)
      ).rows,
    });
    const statesBefore = await statesOf(old.db);
    expect(statesBefore.channels).toHaveLength(1);
    expect(statesBefore.partners).toHaveLength(1);
    expect(await keysOf(old.db)).toEqual(keysWithTenant);
    await old.close();
    // Started again as the release with 0065, which its start applies.
    const handle = createDb(loadConfig({ DATABASE_URL: created.databaseUrl }));
    await sql`delete from kysely_migration
      where name in ('0065-control-state-keys-without-tenant', '0066-sealed-columns-binary',
        '0067-customer-time-key-without-id',
        '0068-log-nodes-from-level-6', '0069-log-entries-by-number', '0070-subject-times-timestamptz',
        '0071-states-without-tenant', '0072-sqlite-keys-without-tenant', '0073-sqlite-states-without-tenant', '0074-sqlite-binary-ids')`.execute(
      handle,
    );
    await handle.destroy();
    const next = await startTestApp(existingStore(created.databaseUrl, created.drop));
    try {
      expect(await keysOf(next.db)).toEqual(keysWithout);
      expect(await findStoreSetting(next.db, 'oldest_release')).toBe('0.21.0');
      expect(await statesOf(next.db)).toEqual(statesBefore);
      // The same script again, on another tenant: the same answers, its states moved alike.
      const after = await script(next);
      expect(after.answers).toEqual(before.answers);
      expect(after.receipts).toEqual([true, true]);
      expect(after.channelStates).toEqual({ states: 1, blocked: 0, last: true });
      expect(after.partnerStates).toEqual({ states: 1, blocked: 0, last: true });
      // It runs again as a no-op.
      await controlStateKeysWithoutTenant.up(next.db as unknown as Kysely<unknown>);
      expect(await keysOf(next.db)).toEqual(keysWithout);
    } finally {
      await next.close();
    }
  });
});

describe('migration 0065 on SQLite', () => {
  const bare = useBareStore(sqliteStore);

  it('leaves the schema as it was, and raises the oldest release', async () => {
    const { db } = bare;
    expect(await migratedKeepingSqliteSchema(db, '0065')).toEqual([
      '0065-control-state-keys-without-tenant',
      '0066-sealed-columns-binary',
      '0067-customer-time-key-without-id',
      '0068-log-nodes-from-level-6',
      '0069-log-entries-by-number',
      '0070-subject-times-timestamptz',
      '0071-states-without-tenant',
      '0072-sqlite-keys-without-tenant',
      '0073-sqlite-states-without-tenant',
      '0074-sqlite-binary-ids',
    ]);
    expect(await findStoreSetting(db, 'oldest_release')).toBe('0.21.0');
  });
});
