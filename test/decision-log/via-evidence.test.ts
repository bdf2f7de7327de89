/**
 * Records a customer made on the preference centre (`via: 'preference-centre'`), on both stores:
 * a decision, a channel change and a partner block recorded through the service functions and
 * the app's own writers (on an SQLite file, across the writer thread). Their receipts open with
 * `via` and verify offline (one with `via` taken out does not), the customer's evidence pack
 * verifies, the log's audit is clean, and their webhook events say `via`; a record made without
 * it has none of it anywhere.
 */
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { channelChanges, setChannel } from '../../src/channels/index.js';
import { auditLog } from '../../src/decision-log/audit.js';
import { decide } from '../../src/decisions/service.js';
import { partnerBlocks, setPartnerBlock } from '../../src/partner-blocks/index.js';
import { createPartner } from '../../src/partners/index.js';
import { createProduct } from '../../src/products/index.js';
import { parseVerifierKey, verifyEvidencePack, verifyReceipt } from '../../src/proof/index.js';
import { createCatalog } from '../../src/templates/catalog.js';
import { publishOutsideReview } from '../../src/templates/index.js';
import { createEndpoint } from '../../src/webhooks/service.js';
import { json, startTestApp, type TestApp, testLogKeys } from '../helpers/app.js';
import { type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import {
  byCli,
  eventually,
  fastWebhooks,
  startReceiver,
  verified,
} from '../helpers/webhook-receiver.js';

const ip = '198.51.100.77';
const userAgent = 'PreferenceCentre/1.0 (marker-3a91c0de)';
const via = 'preference-centre' as const;

describe.each(stores)('evidence of records made on the preference centre, on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let versionId: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let secret: string;

  beforeAll(async () => {
    t = await startTestApp(store, fastWebhooks);
    receiver = await startReceiver();
    a = await seedTenant(t.db);
    const actor = byCli(a.tenant.id);
    await t.db
      .transaction()
      .execute((trx) =>
        createPartner(trx, actor, a.tenant.id, { code: 'zeta-bank', name: 'Zeta Bank' }),
      );
    await t.db
      .transaction()
      .execute((trx) =>
        createProduct(trx, actor, a.tenant.id, { code: 'savings', name: 'Savings' }),
      );
    const code = await seedTemplate(t.db, a.tenant.id);
    versionId = (
      await t.db
        .transaction()
        .execute((trx) =>
          publishOutsideReview(
            trx,
            actor,
            a.tenant.id,
            code,
            { tag: '1.0', content_html: '<p>Sharing with partners</p>' },
            { partners: ['zeta-bank'] },
          ),
        )
    ).id;
    ({ secret } = await createEndpoint(t.db, t.vault, t.config.webhooks, registry, actor, {
      url: receiver.url,
      events: ['decision.given', 'channel_change.recorded', 'partner_block.recorded'],
    }));
  });
  afterAll(async () => {
    await receiver?.close();
    await t.close();
  });

  const context = (withVia: boolean) => ({
    tenantId: a.tenant.id,
    apiKeyId: a.apiKey.id,
    ip,
    userAgent,
    ...(withVia ? { via } : {}),
  });
  const decideAs = async (customer: string, withVia: boolean) => {
    const outcome = await decide(
      t.writer,
      createCatalog(t.db, 'https://consent.test'),
      t.vault,
      context(withVia),
      customer,
      { consent_version_id: versionId, decision: 'given' },
    );
    if (outcome.kind !== 'recorded') throw new Error(`not recorded: ${outcome.kind}`);
    return outcome.decision.decision_id;
  };
  const blockChannel = async (customer: string, withVia: boolean) => {
    const outcome = await setChannel(
      t.db,
      t.writers.of(channelChanges.kind),
      t.vault,
      { ...context(withVia), userId: null },
      { customerId: customer, productCode: 'savings', channel: 'email' },
      true,
    );
    if (outcome.kind !== 'recorded') throw new Error(`not recorded: ${outcome.kind}`);
    return outcome.state.record_id as string;
  };
  const blockPartner = async (customer: string, decisionId: string, withVia: boolean) => {
    const outcome = await setPartnerBlock(
      t.db,
      t.writers.of(partnerBlocks.kind),
      t.vault,
      { ...context(withVia), userId: null },
      { customerId: customer, decisionId, partnerCode: 'zeta-bank' },
      true,
    );
    if (outcome.kind !== 'recorded') throw new Error(`not recorded: ${outcome.kind}`);
    return outcome.state.record_id as string;
  };
  const receipt = async (path: string) => {
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/v1/${path}/receipt?wait=true`,
      headers: a.headers,
    });
    expect(response.statusCode, response.body).toBe(200);
    return json(response);
  };
  const verifier = () => {
    const key = parseVerifierKey(testLogKeys.verifierKey);
    if (!key.ok) throw new Error(key.reason);
    return key.value;
  };
  const eventOf = async (recordId: string) => {
    const payloads = () =>
      receiver.received.map((got) => verified(secret, got) as { type: string; data: any });
    const find = () =>
      payloads().find((p) => p.data.decision_id === recordId || p.data.change_id === recordId);
    await eventually(() => find()?.data.customer_id !== undefined);
    return find();
  };

  /** The three records of one customer, each made on the preference centre or not. */
  const recordAll = async (customer: string, withVia: boolean) => {
    const decisionId = await decideAs(customer, withVia);
    const changeId = await blockChannel(customer, withVia);
    const blockId = await blockPartner(customer, decisionId, withVia);
    return [
      { path: `decisions/${decisionId}`, id: decisionId, kind: 'decision' },
      { path: `channel-changes/${changeId}`, id: changeId, kind: 'channel-change' },
      { path: `partner-block-changes/${blockId}`, id: blockId, kind: 'partner-block' },
    ] as const;
  };

  it('each receipt opens with `via` and verifies offline; taken out, it no longer opens the evidence', async () => {
    for (const record of await recordAll('pat.prefs@example.test', true)) {
      const body = await receipt(record.path);
      expect(body.data.opening, record.kind).toMatchObject({
        customer_id: 'pat.prefs@example.test',
        ip,
        user_agent: userAgent,
        api_key_id: a.apiKey.id,
        via,
      });
      expect(verifyReceipt(body, [verifier()], registry.formats), record.kind).toMatchObject({
        ok: true,
        value: { kind: record.kind, opened: true },
      });
      const without = structuredClone(body);
      delete without.data.opening.via;
      expect(verifyReceipt(without, [verifier()], registry.formats), record.kind).toEqual({
        ok: false,
        reason: "the evidence and salt do not open the leaf's evidence commitment",
      });
    }
  });

  it('a record made without `via` has no `via` in its opening, and its receipt verifies', async () => {
    for (const record of await recordAll('quinn.api@example.test', false)) {
      const body = await receipt(record.path);
      expect(Object.keys(body.data.opening), record.kind).not.toContain('via');
      expect(verifyReceipt(body, [verifier()], registry.formats), record.kind).toMatchObject({
        ok: true,
        value: { kind: record.kind, opened: true },
      });
    }
  });

  it("the customer's evidence pack verifies, its receipts opening with `via`", async () => {
    const customer = 'rae.prefs@example.test';
    const records = await recordAll(customer, true);
    for (const record of records) await receipt(record.path);
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/v1/customers/${encodeURIComponent(customer)}/evidence`,
      headers: a.headers,
    });
    expect(response.statusCode, response.body).toBe(200);
    const files = unzipSync(response.rawPayload);
    expect(
      verifyEvidencePack(new Map(Object.entries(files)), [verifier()], registry.formats),
    ).toMatchObject({
      valid: true,
      failures: [],
    });
    const folders = {
      decision: 'decisions',
      'channel-change': 'channel-changes',
      'partner-block': 'partner-blocks',
    };
    for (const record of records) {
      const file = files[`records/${folders[record.kind]}/${record.id}.json`];
      expect(file, record.kind).toBeDefined();
      expect(JSON.parse(Buffer.from(file ?? []).toString('utf8')).opening.via).toBe(via);
    }
  });

  it("the log's audit recomputes every leaf with `via` from the sealed fields: clean", async () => {
    const records = await recordAll('sam.prefs@example.test', true);
    for (const record of records) await receipt(record.path);
    expect(await auditLog(t.db, t.vault, registry, a.tenant.id)).toMatchObject({
      ok: true,
      findings: [],
    });
  });

  it('webhook events say `via` for a record made on the preference centre, and nothing of it otherwise', async () => {
    const [decision, change, block] = await recordAll('tam.prefs@example.test', true);
    const decided = await eventOf(decision.id);
    expect(decided?.type).toBe('decision.given');
    expect(decided?.data.via).toBe(via);
    expect(Object.keys(decided?.data ?? {}).slice(-2)).toEqual(['via', 'log_index']);
    for (const record of [change, block]) {
      const event = await eventOf(record.id);
      expect(event?.data, record.kind).toMatchObject({
        customer_id: 'tam.prefs@example.test',
        actor: { api_key_id: a.apiKey.id, user_id: null },
        via,
      });
      expect(Object.keys(event?.data ?? {}).slice(-3), record.kind).toEqual([
        'actor',
        'via',
        'log_index',
      ]);
    }
    for (const record of await recordAll('uma.api@example.test', false)) {
      const event = await eventOf(record.id);
      expect(Object.keys(event?.data ?? {}), record.kind).not.toContain('via');
    }
  });
});
