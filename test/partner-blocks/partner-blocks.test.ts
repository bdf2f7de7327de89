/**
 * Partner blocks through the API, on both stores: one partner blocked and allowed again on one of
 * a customer's decisions (another decision unaffected), the listing, the refusals, another
 * tenant's view, receipts that verify offline, the log's audit over every kind of record, and
 * erasure.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { auditLog } from '../../src/decision-log/audit.js';
import { eraseCustomer } from '../../src/erasure/service.js';
import { createPartner } from '../../src/partners/index.js';
import { createProduct } from '../../src/products/index.js';
import { parseVerifierKey, verifyReceipt } from '../../src/proof/index.js';
import { changeValidityAs } from '../../src/templates/actions.js';
import { publishOutsideReview } from '../../src/templates/index.js';
import { getTemplateByCode } from '../../src/templates/service.js';
import { apiOf } from '../helpers/api.js';
import { expectErrorShape, json, startTestApp, type TestApp, testLogKeys } from '../helpers/app.js';
import { seedPublishedSystem } from '../helpers/cookies.js';
import { insertDecisionAt } from '../helpers/decisions.js';
import { runCli, showResult } from '../helpers/process.js';
import { type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { storeBytes } from '../helpers/store-scan.js';
import { stores } from '../helpers/stores.js';

const userAgent = 'PartnerProbe/1.4 (marker-5d2f90ab)';
const ip = '198.51.100.23';
const isoMillis = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe.each(stores)('partner blocks on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let b: SeededTenant;
  /** A release listing `zeta-bank` and `acme-insure`; one listing none. */
  let withPartners: string;
  let withoutPartners: string;
  const actorOf = (s: SeededTenant) =>
    ({
      tenantId: s.tenant.id,
      actorKind: 'operator',
      actor: 'test',
      ip: 'local',
      userAgent: null,
    }) as const;

  beforeAll(async () => {
    t = await startTestApp(store, { LOG_INTEGRATE_INTERVAL_MS: '60000' });
    a = await seedTenant(t.db);
    b = await seedTenant(t.db);
    for (const [code, name] of [
      ['zeta-bank', 'Zeta Bank'],
      ['acme-insure', 'Acme Insurance'],
      ['unlisted', 'Listed by no version'],
    ]) {
      await t.db
        .transaction()
        .execute((trx) => createPartner(trx, actorOf(a), a.tenant.id, { code, name }));
    }
    await t.db
      .transaction()
      .execute((trx) =>
        createProduct(trx, actorOf(a), a.tenant.id, { code: 'savings', name: 'Savings' }),
      );
    const publishWith = async (s: SeededTenant, partners?: string[]) => {
      const code = await seedTemplate(t.db, s.tenant.id);
      const version = await t.db
        .transaction()
        .execute((trx) =>
          publishOutsideReview(
            trx,
            actorOf(s),
            s.tenant.id,
            code,
            { tag: '1.0', content_html: '<p>Sharing with partners</p>' },
            partners === undefined ? {} : { partners },
          ),
        );
      return version.id;
    };
    withPartners = await publishWith(a, ['zeta-bank', 'acme-insure']);
    withoutPartners = await publishWith(a);
  });
  const dir = mkdtempSync(join(tmpdir(), 'partner-receipts-'));
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const decide = async (customer: string, versionId: string, s: SeededTenant = a) => {
    const response = await apiOf(t.app, s.headers).decide(customer, versionId, 'given');
    expect(response.statusCode, response.body).toBe(201);
    return json(response).data.decision_id as string;
  };
  const url = (customer: string, decision: string, partner?: string) =>
    `/api/v1/customers/${encodeURIComponent(customer)}/consents/decisions/${decision}/partners${
      partner === undefined ? '' : `/${partner}`
    }`;
  const put = (
    customer: string,
    decision: string,
    partner: string,
    payload: unknown,
    headers: Record<string, string> = a.headers,
  ) =>
    t.app.inject({
      method: 'PUT',
      url: url(customer, decision, partner),
      headers: { ...headers, 'user-agent': userAgent, 'content-type': 'application/json' },
      payload: JSON.stringify(payload),
      remoteAddress: ip,
    });
  const list = (customer: string, decision: string, headers: Record<string, string> = a.headers) =>
    t.app.inject({ method: 'GET', url: url(customer, decision), headers });
  const receipt = async (id: string) => {
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/v1/partner-block-changes/${id}/receipt?wait=true`,
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

  it('blocking records a change (201); again records nothing (200); allowing records one', async () => {
    const decision = await decide('alice', withPartners);
    const blocked = await put('alice', decision, 'zeta-bank', { blocked: true });
    expect(blocked.statusCode, blocked.body).toBe(201);
    const first = json(blocked).data;
    expect(first).toEqual({
      partner_code: 'zeta-bank',
      blocked: true,
      since: expect.stringMatching(isoMillis),
      record_id: expect.stringMatching(uuid),
    });
    expect(Object.keys(first)).toEqual(['partner_code', 'blocked', 'since', 'record_id']);

    const again = await put('alice', decision, 'zeta-bank', { blocked: true });
    expect(again.statusCode, again.body).toBe(200);
    expect(json(again).data).toEqual(first);
    const rows = await t.db
      .selectFrom('partner_block_changes')
      .select(['id', 'api_key_id', 'user_id'])
      .where('decision_id', '=', decision)
      .execute();
    expect(rows).toEqual([{ id: first.record_id, api_key_id: a.apiKey.id, user_id: null }]);

    const allowed = await put('alice', decision, 'zeta-bank', { blocked: false });
    expect(allowed.statusCode, allowed.body).toBe(201);
    expect(json(allowed).data).toMatchObject({ blocked: false, partner_code: 'zeta-bank' });
    expect(json(allowed).data.record_id).not.toBe(first.record_id);
  });

  it("lists every partner the decision's version lists, by code; another decision is unaffected", async () => {
    const first = await decide('bob', withPartners);
    const blocked = json(await put('bob', first, 'acme-insure', { blocked: true })).data;
    // A second decision on the same release (re-consent), and one on a release without partners.
    const second = await decide('bob', withPartners);
    const bare = await decide('bob', withoutPartners);

    const listed = await list('bob', first);
    expect(listed.statusCode, listed.body).toBe(200);
    expect(json(listed)).toEqual({
      data: [
        {
          partner_code: 'acme-insure',
          name: 'Acme Insurance',
          blocked: true,
          since: blocked.since,
          record_id: blocked.record_id,
        },
        {
          partner_code: 'zeta-bank',
          name: 'Zeta Bank',
          blocked: false,
          since: null,
          record_id: null,
        },
      ],
    });
    const other = json(await list('bob', second)).data as { blocked: boolean }[];
    expect(other.map((p) => p.blocked)).toEqual([false, false]);
    expect(json(await list('bob', bare))).toEqual({ data: [] });
  });

  it('a decision no longer in force (superseded, withdrawn, rejected, lapsed) takes no change: 409 1005; a keyed retry still replays', async () => {
    const refused = async (customer: string, decision: string, blocked = true, by = a) => {
      const response = await put(customer, decision, 'acme-insure', { blocked }, by.headers);
      expect(response.statusCode, response.body).toBe(409);
      expect(expectErrorShape(response).code).toBe('1005');
    };
    const api = apiOf(t.app, a.headers);
    const first = await decide('dave', withPartners);
    const keyed = () =>
      t.app.inject({
        method: 'PUT',
        url: url('dave', first, 'zeta-bank'),
        headers: { ...a.headers, 'content-type': 'application/json', 'idempotency-key': 'dave-1' },
        payload: JSON.stringify({ blocked: true }),
      });
    const original = await keyed();
    expect(original.statusCode, original.body).toBe(201);

    // Re-consent: the first decision is superseded, the second takes blocks.
    const second = await decide('dave', withPartners);
    await refused('dave', first);
    await refused('dave', first, false);
    const retry = await keyed();
    expect(retry.statusCode, retry.body).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toBe(original.body);
    expect((await put('dave', second, 'acme-insure', { blocked: true })).statusCode).toBe(201);

    // Withdrawn: neither the given nor the withdraw takes a change.
    const withdrawn = await api.decide('dave', withPartners, 'withdraw');
    expect(withdrawn.statusCode, withdrawn.body).toBe(201);
    await refused('dave', second, false);
    await refused('dave', json(withdrawn).data.decision_id as string);

    const rejected = await api.decide('erin', withPartners, 'reject');
    expect(rejected.statusCode, rejected.body).toBe(201);
    await refused('erin', json(rejected).data.decision_id as string);

    // Lapsed: given 400 days ago on a template whose consent lasts 12 months (a tenant of its
    // own: the decision, written straight to the store, has no leaf for the log's audit).
    const c = await seedTenant(t.db);
    const code = await seedTemplate(t.db, c.tenant.id);
    const lapsing = await t.db.transaction().execute(async (trx) => {
      await createPartner(trx, actorOf(c), c.tenant.id, {
        code: 'acme-insure',
        name: 'Acme Insurance',
      });
      await changeValidityAs(trx, actorOf(c), await getTemplateByCode(trx, c.tenant.id, code), 12);
      return publishOutsideReview(
        trx,
        actorOf(c),
        c.tenant.id,
        code,
        { tag: '1.0', content_html: '<p>Lapses</p>' },
        { partners: ['acme-insure'] },
      );
    });
    const old = new Date(Date.now() - 400 * 24 * 3600 * 1000).toISOString();
    const lapsed = await insertDecisionAt(
      t,
      { tenantId: c.tenant.id, apiKeyId: c.apiKey.id },
      'dave',
      lapsing.id,
      'given',
      old,
    );
    await refused('dave', lapsed, true, c);

    // Nothing was recorded by any refusal.
    const changes = await t.db
      .selectFrom('partner_block_changes')
      .select(['decision_id', 'partner_code'])
      .where('decision_id', 'in', [first, second, lapsed, json(withdrawn).data.decision_id])
      .orderBy('changed_at')
      .execute();
    expect(changes).toEqual([
      { decision_id: first, partner_code: 'zeta-bank' },
      { decision_id: second, partner_code: 'acme-insure' },
    ]);
  });

  it("a partner the version does not list, or a decision not the customer's, is 404 1004; a bad body 400 1001", async () => {
    const decision = await decide('carol', withPartners);
    const bare = await decide('carol', withoutPartners);
    const theirs = await decide('someone-else', withPartners);
    for (const response of [
      await put('carol', decision, 'unlisted', { blocked: true }),
      await put('carol', decision, 'no-such-partner', { blocked: true }),
      await put('carol', bare, 'zeta-bank', { blocked: true }),
      await put('carol', theirs, 'zeta-bank', { blocked: true }),
      await put('carol', '0190e8a0-0000-7000-8000-000000000000', 'zeta-bank', { blocked: true }),
      await list('carol', theirs),
      await list('never-seen', decision),
    ]) {
      expect(response.statusCode, response.body).toBe(404);
      expect(expectErrorShape(response).code).toBe('1004');
    }
    for (const payload of [{}, { blocked: 'yes' }, { blocked: true, extra: 1 }, [true]]) {
      const response = await put('carol', decision, 'zeta-bank', payload);
      expect(response.statusCode, response.body).toBe(400);
      expect(expectErrorShape(response).code).toBe('1001');
    }
    const badId = await put('carol', 'not-a-uuid', 'zeta-bank', { blocked: true });
    expect(badId.statusCode).toBe(400);
    expect(expectErrorShape(badId).code).toBe('1001');
    const count = await t.db
      .selectFrom('partner_block_changes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('decision_id', 'in', [decision, bare, theirs])
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(0);
  });

  it("another tenant's key neither sees nor changes this tenant's blocks", async () => {
    const decision = await decide('dave', withPartners);
    const blocked = json(await put('dave', decision, 'zeta-bank', { blocked: true })).data;
    for (const response of [
      await put('dave', decision, 'zeta-bank', { blocked: false }, b.headers),
      await list('dave', decision, b.headers),
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/partner-block-changes/${blocked.record_id}/receipt`,
        headers: b.headers,
      }),
    ]) {
      expect(response.statusCode, response.body).toBe(404);
      expect(expectErrorShape(response).code).toBe('1004');
    }
    const mine = json(await list('dave', decision)).data as { blocked: boolean }[];
    expect(mine.find((p) => p.blocked)).toMatchObject({ partner_code: 'zeta-bank' });
  });

  it('a change has a receipt that verifies offline, with the customer, evidence and key opened', async () => {
    const decision = await decide('erin', withPartners);
    const change = await t.app.inject({
      method: 'PUT',
      url: url('erin', decision, 'acme-insure'),
      headers: {
        ...a.headers,
        'user-agent': userAgent,
        'content-type': 'application/json',
        'idempotency-key': 'block-erin-acme-1',
      },
      payload: JSON.stringify({ blocked: true }),
      remoteAddress: ip,
    });
    expect(change.statusCode, change.body).toBe(201);
    const state = json(change).data;
    const stored = await t.db
      .selectFrom('partner_block_changes')
      .select('idempotency_key')
      .where('id', '=', state.record_id)
      .executeTakeFirstOrThrow();
    expect(stored.idempotency_key).toBe('block-erin-acme-1');

    const body = await receipt(state.record_id);
    expect(body.data.partner_block).toEqual({
      change_id: state.record_id,
      decision_id: decision,
      partner_code: 'acme-insure',
      blocked: true,
      changed_at: state.since,
      customer_id: 'erin',
    });
    expect(body.data.opening).toMatchObject({
      customer_id: 'erin',
      ip,
      user_agent: userAgent,
      api_key_id: a.apiKey.id,
    });
    expect(body.data.leaf).toMatch(/^consent-log\/partner\/v1\nrecord /);
    expect(verifyReceipt(body, [verifier()], registry.formats)).toMatchObject({
      ok: true,
      value: {
        kind: 'partner-block',
        opened: true,
        leaf: { decisionId: decision, partnerCode: 'acme-insure', blocked: true },
      },
    });
    for (const alter of [
      (r: typeof body) => {
        r.data.partner_block.partner_code = 'zeta-bank';
      },
      (r: typeof body) => {
        r.data.partner_block.decision_id = '0190e8a0-0000-7000-8000-000000000000';
      },
      (r: typeof body) => {
        r.data.opening.ip = '192.0.2.1';
      },
    ]) {
      const altered = structuredClone(body);
      alter(altered);
      expect(verifyReceipt(altered, [verifier()], registry.formats)).toMatchObject({ ok: false });
    }
  });

  it('verify-receipt accepts the receipt file and prints the block; it refuses one with the partner changed', async () => {
    const decision = await decide('ivy', withPartners);
    const change = json(await put('ivy', decision, 'zeta-bank', { blocked: true })).data;
    const body = await receipt(change.record_id);
    const file = join(dir, `receipt-${store.name}.json`);
    writeFileSync(file, JSON.stringify(body));
    const result = await runCli(['verify-receipt', file, '--key', testLogKeys.verifierKey], {});
    expect(result.code, showResult(result)).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      valid: true,
      kind: 'partner-block',
      origin: `consent.test/consent-log/${a.tenant.id}`,
      tree_size: body.data.tree_size,
      leaf_index: body.data.leaf_index,
      opened: true,
      record: {
        change_id: change.record_id,
        changed_at: change.since,
        decision_id: decision,
        partner_code: 'zeta-bank',
        blocked: true,
      },
    });
    const tampered = structuredClone(body);
    tampered.data.partner_block.partner_code = 'acme-insure';
    const tamperedFile = join(dir, `tampered-${store.name}.json`);
    writeFileSync(tamperedFile, JSON.stringify(tampered));
    const refused = await runCli(
      ['verify-receipt', tamperedFile, '--key', testLogKeys.verifierKey],
      {},
    );
    expect(refused.code, showResult(refused)).toBe(1);
    expect(refused.stderr).toBe(
      "The receipt does not verify: the receipt's partner_code is not the one in the log\n",
    );
  });

  it('the audit of a log with every kind of record is clean, and names a changed block', async () => {
    const decision = await decide('frank', withPartners);
    const channel = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/customers/frank/channels/savings/email',
      headers: { ...a.headers, 'content-type': 'application/json' },
      payload: JSON.stringify({ blocked: true }),
    });
    expect(channel.statusCode, channel.body).toBe(201);
    const site = await seedPublishedSystem(t.db, a.tenant.id, { categories: ['analytics'] });
    const cookie = await t.app.inject({
      method: 'POST',
      url: `/cookies/v1/${site.scope}/decisions`,
      headers: { origin: 'https://www.bank.example', 'content-type': 'text/plain;charset=UTF-8' },
      payload: JSON.stringify({
        event_id: randomUUID(),
        visitor_id: randomUUID(),
        configuration_id: site.configurationId,
        configuration_version: site.version,
        method: 'accept-all',
        categories: { necessary: true, analytics: true },
        locale: 'en',
      }),
    });
    expect(cookie.statusCode, cookie.body).toBe(201);
    const change = json(await put('frank', decision, 'zeta-bank', { blocked: true })).data;
    await eraseCustomer(t.db, t.vault, registry, a.tenant.id, 'erased-before-audit', actorOf(a));
    await receipt(change.record_id);
    expect(await auditLog(t.db, t.vault, registry, a.tenant.id)).toMatchObject({
      ok: true,
      findings: [],
    });

    await t.db
      .updateTable('partner_block_changes')
      .set({ partner_code: 'acme-insure' })
      .where('id', '=', change.record_id)
      .execute();
    try {
      const report = await auditLog(t.db, t.vault, registry, a.tenant.id);
      expect(report.ok).toBe(false);
      expect(report.findings).toEqual([
        expect.objectContaining({ kind: 'record-differs-from-leaf', record_id: change.record_id }),
      ]);
    } finally {
      await t.db
        .updateTable('partner_block_changes')
        .set({ partner_code: 'zeta-bank' })
        .where('id', '=', change.record_id)
        .execute();
    }
  });

  it("erasing the customer shreds their blocks' personal data and clears the states; the log audits clean", async () => {
    const customer = 'gina.partners-7a3c@example.test';
    const decision = await decide(customer, withPartners);
    const change = json(await put(customer, decision, 'zeta-bank', { blocked: true })).data;
    await receipt(change.record_id);
    const result = await eraseCustomer(t.db, t.vault, registry, a.tenant.id, customer, actorOf(a));
    expect(result.erased).toBe(true);

    const states = await t.db
      .selectFrom('partner_block_states')
      .selectAll()
      .where('decision_id', '=', decision)
      .execute();
    expect(states).toEqual([]);
    expect((await storeBytes(t.db, t.config.databaseUrl)).includes(customer)).toBe(false);
    // The decision is no longer the customer's for the API.
    const listed = await list(customer, decision);
    expect(listed.statusCode).toBe(404);
    const after = await receipt(change.record_id);
    expect(after.data.opening).toBeNull();
    expect(after.data.partner_block.customer_id).toBeNull();
    expect(verifyReceipt(after, [verifier()], registry.formats)).toMatchObject({
      ok: true,
      value: { opened: false },
    });
    expect(await auditLog(t.db, t.vault, registry, a.tenant.id)).toMatchObject({
      ok: true,
      findings: [],
    });
  });

  const asOf = async (customer: string, code: string, at: string) => {
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/v1/customers/${encodeURIComponent(customer)}/consents/templates/${code}/as-of?at=${encodeURIComponent(at)}`,
      headers: a.headers,
    });
    expect(response.statusCode, response.body).toBe(200);
    return json(response).data;
  };
  const before = (instant: string) => new Date(Date.parse(instant) - 1).toISOString();

  it('as-of answers the partners blocked on its decision at that moment, and nothing for a version without partners', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const version = await t.db
      .transaction()
      .execute((trx) =>
        publishOutsideReview(
          trx,
          actorOf(a),
          a.tenant.id,
          code,
          { tag: '1.0', content_html: '<p>As of</p>' },
          { partners: ['zeta-bank', 'acme-insure'] },
        ),
      );
    const decision = await decide('jack', version.id);
    const blocked = json(await put('jack', decision, 'zeta-bank', { blocked: true })).data;
    const acme = json(await put('jack', decision, 'acme-insure', { blocked: true })).data;
    const allowed = json(await put('jack', decision, 'zeta-bank', { blocked: false })).data;

    expect((await asOf('jack', code, before(blocked.since))).blocked_partners).toEqual([]);
    expect((await asOf('jack', code, blocked.since)).blocked_partners).toEqual(['zeta-bank']);
    expect((await asOf('jack', code, acme.since)).blocked_partners).toEqual([
      'acme-insure',
      'zeta-bank',
    ]);
    const now = await asOf('jack', code, allowed.since);
    expect(now.blocked_partners).toEqual(['acme-insure']);
    expect(Object.keys(now)).toEqual([
      'customer_id',
      'template_code',
      'at',
      'decision',
      'latest_version',
      'accepted',
      'blocked_partners',
    ]);
    // A decision on a version listing no partner: the answer has no `blocked_partners`.
    const bareCode = await seedTemplate(t.db, a.tenant.id);
    const bare = await t.db.transaction().execute((trx) =>
      publishOutsideReview(trx, actorOf(a), a.tenant.id, bareCode, {
        tag: '1.0',
        content_html: '<p>No partners</p>',
      }),
    );
    await decide('jack', bare.id);
    expect(Object.keys(await asOf('jack', bareCode, new Date().toISOString()))).toEqual([
      'customer_id',
      'template_code',
      'at',
      'decision',
      'latest_version',
      'accepted',
    ]);
  });

  it('as-of with a block and a validity period: expired from the lapse, the block as it stood', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const version = await t.db
      .transaction()
      .execute((trx) =>
        publishOutsideReview(
          trx,
          actorOf(a),
          a.tenant.id,
          code,
          { tag: '1.0', content_html: '<p>Lapses</p>' },
          { partners: ['zeta-bank'] },
        ),
      );
    // The text in force since 2025-01-01, before every moment asked about.
    await t.db
      .updateTable('template_versions')
      .set({ published_at: '2025-01-01T00:00:00.000Z' })
      .where('tenant_id', '=', a.tenant.id)
      .where('id', '=', version.id)
      .execute();
    // Given on 2025-03-10: 12 calendar months later it lapses, at 2026-03-10T00:00:00.000Z.
    const decision = await insertDecisionAt(
      t,
      { tenantId: a.tenant.id, apiKeyId: a.apiKey.id },
      'kate',
      version.id,
      'given',
      '2025-03-10T00:00:00.000Z',
    );
    // Blocked while the decision is in force (no period yet), then the 12-month period set and
    // dated 2025-01-01, so the moments asked about fall under it.
    const blocked = json(await put('kate', decision, 'zeta-bank', { blocked: true })).data;
    await t.db.transaction().execute(async (trx) => {
      const row = await getTemplateByCode(trx, a.tenant.id, code);
      await changeValidityAs(trx, actorOf(a), row, 12);
    });
    await t.db
      .updateTable('template_validity_changes')
      .set({ changed_at: '2025-01-01T00:00:00.000Z' })
      .where('tenant_id', '=', a.tenant.id)
      .execute();

    expect(await asOf('kate', code, '2026-03-09T00:00:00.000Z')).toMatchObject({
      accepted: true,
      expired: false,
      expires_at: '2026-03-10T00:00:00.000Z',
      blocked_partners: [],
    });
    expect(await asOf('kate', code, '2026-03-10T00:00:00.000Z')).toMatchObject({
      accepted: false,
      expired: true,
      blocked_partners: [],
    });
    expect(await asOf('kate', code, '2026-03-11T00:00:00.000Z')).toMatchObject({
      accepted: false,
      expired: true,
    });
    expect(await asOf('kate', code, blocked.since)).toMatchObject({
      accepted: false,
      expired: true,
      blocked_partners: ['zeta-bank'],
    });
  });

  it("the customer's history gives their channel changes and partner blocks with include=controls, and only then", async () => {
    const decision = await decide('liam', withPartners);
    const channelUrl = '/api/v1/customers/liam/channels/savings/sms';
    const channel = await t.app.inject({
      method: 'PUT',
      url: channelUrl,
      headers: { ...a.headers, 'content-type': 'application/json' },
      payload: JSON.stringify({ blocked: true }),
    });
    expect(channel.statusCode, channel.body).toBe(201);
    const first = json(channel).data;
    const block = json(await put('liam', decision, 'acme-insure', { blocked: true })).data;
    const history = (query: string) =>
      t.app.inject({
        method: 'GET',
        url: `/api/v1/customers/liam/consents${query}`,
        headers: a.headers,
      });
    const plain = json(await history(''));
    expect(Object.keys(plain.data)).toEqual(['customer_id', 'templates', 'history', 'next_cursor']);
    const withControls = json(await history('?include=controls'));
    expect(Object.keys(withControls.data)).toEqual([
      'customer_id',
      'templates',
      'history',
      'next_cursor',
      'controls',
    ]);
    expect(withControls.data.controls).toEqual([
      {
        type: 'partner_block',
        change_id: block.record_id,
        changed_at: block.since,
        blocked: true,
        decision_id: decision,
        partner_code: 'acme-insure',
      },
      {
        type: 'channel_change',
        change_id: first.record_id,
        changed_at: first.since,
        blocked: true,
        product_code: 'savings',
        channel: 'sms',
      },
    ]);
    expect(withControls.data.history).toEqual(plain.data.history);
    const nobody = json(
      await t.app.inject({
        method: 'GET',
        url: '/api/v1/customers/never-recorded/consents?include=controls',
        headers: a.headers,
      }),
    );
    expect(nobody.data.controls).toEqual([]);
    const theirs = json(
      await t.app.inject({
        method: 'GET',
        url: '/api/v1/customers/liam/consents?include=controls',
        headers: b.headers,
      }),
    );
    expect(theirs.data.controls).toEqual([]);
    const bad = await history('?include=everything');
    expect(bad.statusCode).toBe(400);
    expect(expectErrorShape(bad).code).toBe('1001');
  });

  it('an Idempotency-Key replays the first answer, and the same key with another request is 422 1010', async () => {
    const decision = await decide('mia', withPartners);
    const keyed = (partner: string, blocked: boolean, key: string) =>
      t.app.inject({
        method: 'PUT',
        url: url('mia', decision, partner),
        headers: { ...a.headers, 'content-type': 'application/json', 'idempotency-key': key },
        payload: JSON.stringify({ blocked }),
      });
    const first = await keyed('zeta-bank', true, 'mia-zeta-1');
    expect(first.statusCode, first.body).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // The partner is allowed again meanwhile; the retry still answers the first answer.
    expect((await put('mia', decision, 'zeta-bank', { blocked: false })).statusCode).toBe(201);
    const retry = await keyed('zeta-bank', true, 'mia-zeta-1');
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toBe(first.body);
    for (const other of [
      await keyed('acme-insure', true, 'mia-zeta-1'),
      await keyed('zeta-bank', false, 'mia-zeta-1'),
    ]) {
      expect(other.statusCode, other.body).toBe(422);
      expect(expectErrorShape(other).code).toBe('1010');
    }
    const rows = await t.db
      .selectFrom('partner_block_changes')
      .select('idempotency_key')
      .where('decision_id', '=', decision)
      .orderBy('changed_at')
      .execute();
    expect(rows.map((r) => r.idempotency_key)).toEqual(['mia-zeta-1', null]);
  });

  it('concurrent blocks of one partner are serialized: one change per actual transition', async () => {
    const decision = await decide('harry', withPartners);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => put('harry', decision, 'zeta-bank', { blocked: true })),
    );
    expect(answers.map((r) => r.statusCode).sort()).toEqual([
      200, 200, 200, 200, 200, 200, 200, 201,
    ]);
    expect(new Set(answers.map((r) => json(r).data.record_id)).size).toBe(1);
  });
});
