/**
 * PostgreSQL's keys of the control kinds' states (`channel_states_pk`,
 * `partner_block_states_pk`) leading with the tenant, as every store has them, or without it
 * (`(subject_id, product_id, channel)`, `(decision_id, partner_code)`): the service runs on
 * either, since its upserts name each key by its name. One script of control changes (a
 * channel blocked, blocked again and allowed; a partner blocked and allowed on a decision)
 * answers byte for byte alike on both but for ids and times, each state holds its key's last
 * change, and the receipts verify.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { createPartner } from '../../src/partners/index.js';
import { createProduct } from '../../src/products/index.js';
import { parseVerifierKey, verifyReceipt } from '../../src/proof/index.js';
import { publishOutsideReview } from '../../src/templates/index.js';
import { apiOf } from '../helpers/api.js';
import { placeheld } from '../helpers/api-session.js';
import { json, startTestApp, type TestApp, testLogKeys } from '../helpers/app.js';
import { postgresControlStateKeysStore } from '../helpers/schema-history.js';
import { seedTemplate, seedTenant } from '../helpers/seed.js';
import { postgresStore } from '../helpers/stores.js';

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
    withTenant = await startTestApp(postgresStore);
    without = await startTestApp(postgresControlStateKeysStore);
  });
  afterAll(async () => {
    await withTenant?.close();
    await without?.close();
  });

  it('one script of control changes answers alike on both; each state holds its last change', async () => {
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
