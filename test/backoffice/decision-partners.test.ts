/**
 * Partner blocks on a decision's page in the back-office,: the partners the
 * version lists with their state, a block and an allow by a user with `consent_decisions:edit`
 * recorded with the user as evidence (a receipt that verifies offline) and in the audit log,
 * and the page without buttons for a user who may only look.
 */
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../../src/accounts/users.js';
import { registry } from '../../src/app/kinds.js';
import { createPartner } from '../../src/partners/index.js';
import { parseVerifierKey, verifyReceipt } from '../../src/proof/index.js';
import { publishOutsideReview } from '../../src/templates/index.js';
import { hashPassword } from '../../src/tenants/passwords.js';
import { apiOf } from '../helpers/api.js';
import { json, type TestApp, testLogKeys } from '../helpers/app.js';
import { type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { storeAgnostic } from '../helpers/stores.js';
import { testPasswordHashCost } from '../helpers/time.js';
import {
  type PageClient,
  signedIn,
  startBackofficeApp,
  tenantPassword,
  textOf,
} from './support.js';

describe.each(storeAgnostic)("partner blocks on a decision's page on $name", (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let admin: PageClient;
  let viewer: PageClient;
  let decisionId: string;
  let versionId: string;
  let adminUserId: string;
  const actor = (s: SeededTenant) =>
    ({
      tenantId: s.tenant.id,
      actorKind: 'operator',
      actor: 'test',
      ip: 'local',
      userAgent: null,
    }) as const;

  beforeAll(async () => {
    t = await startBackofficeApp(store);
    a = await seedTenant(t.db);
    admin = await signedIn(t.app, a.tenant.email);
    const hash = await hashPassword(tenantPassword, testPasswordHashCost);
    const email = `auditor-${a.tenant.alias}@example.test`;
    await t.db
      .transaction()
      .execute((trx) =>
        addUser(trx, a.tenant.id, { email, name: 'Aud', roles: ['auditor'], passwordHash: hash }),
      );
    viewer = await signedIn(t.app, email);
    const user = await t.db
      .selectFrom('users')
      .select('id')
      .where('tenant_id', '=', a.tenant.id)
      .where('email', '=', a.tenant.email)
      .executeTakeFirstOrThrow();
    adminUserId = user.id;
    for (const [code, name] of [
      ['zeta-bank', 'Zeta Bank'],
      ['acme-insure', 'Acme Insurance'],
    ]) {
      await t.db
        .transaction()
        .execute((trx) => createPartner(trx, actor(a), a.tenant.id, { code, name }));
    }
    const code = await seedTemplate(t.db, a.tenant.id);
    const version = await t.db
      .transaction()
      .execute((trx) =>
        publishOutsideReview(
          trx,
          actor(a),
          a.tenant.id,
          code,
          { tag: '1.0', content_html: '<p>Sharing</p>' },
          { partners: ['zeta-bank', 'acme-insure'] },
        ),
      );
    const decided = await apiOf(t.app, a.headers).decide('pia', version.id, 'given');
    expect(decided.statusCode, decided.body).toBe(201);
    decisionId = json(decided).data.decision_id;
    versionId = version.id;
  });
  afterAll(() => t?.close());

  it('lists the partners with a Block button; blocking records the change with the user as evidence', async () => {
    const page = await admin.get(`/backoffice/decisions/${decisionId}`);
    expect(page.statusCode).toBe(200);
    const text = textOf(page.body);
    expect(text).toContain('Partners');
    expect(text).toMatch(/Acme Insurance \(acme-insure\)\s+allowed/);
    expect(page.body).toContain('Block Zeta Bank');

    const blocked = await admin.post(`/backoffice/decisions/${decisionId}/partners/zeta-bank`, {
      blocked: '1',
    });
    expect(blocked.statusCode, blocked.body).toBe(303);
    expect(blocked.headers.location).toBe(
      `/backoffice/decisions/${decisionId}?notice=partner-blocked#partners`,
    );
    const after = await admin.get(`/backoffice/decisions/${decisionId}?notice=partner-blocked`);
    expect(textOf(after.body)).toContain('The partner is blocked on this decision.');
    expect(textOf(after.body)).toMatch(/Zeta Bank \(zeta-bank\)\s+blocked/);
    expect(after.body).toContain('Allow Zeta Bank');

    const rows = await t.db
      .selectFrom('partner_block_changes')
      .select(['id', 'api_key_id', 'user_id', 'blocked'])
      .where('decision_id', '=', decisionId)
      .execute();
    expect(rows).toEqual([
      { id: expect.any(String), api_key_id: null, user_id: adminUserId, blocked: 1 },
    ]);
    // The API sees the block, and the receipt opens to the user, with no API key.
    const listed = json(
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/customers/pia/consents/decisions/${decisionId}/partners`,
        headers: a.headers,
      }),
    ).data;
    expect(listed.map((p: { blocked: boolean }) => p.blocked)).toEqual([false, true]);
    const receipt = json(
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/partner-block-changes/${rows[0]?.id}/receipt?wait=true`,
        headers: a.headers,
      }),
    );
    expect(receipt.data.opening).toMatchObject({
      customer_id: 'pia',
      api_key_id: null,
      user_id: adminUserId,
    });
    const key = parseVerifierKey(testLogKeys.verifierKey);
    if (!key.ok) throw new Error(key.reason);
    expect(verifyReceipt(receipt, [key.value], registry.formats)).toMatchObject({
      ok: true,
      value: { kind: 'partner-block', opened: true },
    });

    const audit = await t.db
      .selectFrom('audit_log')
      .select(['action', 'actor', 'target', 'details'])
      .where('tenant_id', '=', a.tenant.id)
      .where('action', 'like', 'partner_block.%')
      .execute();
    expect(audit).toEqual([
      {
        action: 'partner_block.blocked',
        actor: a.tenant.email,
        target: decisionId,
        details: JSON.stringify({ partner: 'zeta-bank', record_id: rows[0]?.id }),
      },
    ]);

    const again = await admin.post(`/backoffice/decisions/${decisionId}/partners/zeta-bank`, {
      blocked: '1',
    });
    expect(again.headers.location).toContain('notice=partner-unchanged');
    const allowed = await admin.post(`/backoffice/decisions/${decisionId}/partners/zeta-bank`, {
      blocked: '0',
    });
    expect(allowed.headers.location).toContain('notice=partner-allowed');
  });

  it('the controls export lists channel changes and partner blocks, oldest first, with who made each; taking it is audited', async () => {
    const channel = await t.app.inject({
      method: 'PUT',
      url: '/api/v1/customers/pia/channels/general/email',
      headers: {
        ...a.headers,
        'content-type': 'application/json',
        'user-agent': 'Shop/3',
        'idempotency-key': 'pia-email-1',
      },
      payload: JSON.stringify({ blocked: true }),
      remoteAddress: '198.51.100.7',
    });
    // A tenant's first product is `general` (seedTenant); 404 would mean the seed changed.
    expect(channel.statusCode, channel.body).toBe(201);
    const response = await admin.get('/backoffice/exports/controls.csv');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    const rows = parse(response.body, { columns: true }) as Record<string, string>[];
    expect(Object.keys(rows[0] ?? {})).toEqual([
      'changed_at',
      'type',
      'customer_id',
      'product_code',
      'channel',
      'decision_id',
      'partner_code',
      'blocked',
      'change_id',
      'made_by',
      'ip',
      'user_agent',
      'idempotency_key',
      'changed_on',
      'time_zone',
    ]);
    // The first test blocked then allowed zeta-bank (by the admin), then the channel change.
    expect(rows.map((r) => [r.type, r.partner_code || r.channel, r.blocked, r.made_by])).toEqual([
      ['partner_block', 'zeta-bank', 'true', `user:${adminUserId}`],
      ['partner_block', 'zeta-bank', 'false', `user:${adminUserId}`],
      ['channel_change', 'email', 'true', a.apiKey.id],
    ]);
    expect(rows[2]).toMatchObject({
      customer_id: 'pia',
      product_code: 'general',
      decision_id: '',
      ip: '198.51.100.7',
      user_agent: 'Shop/3',
      change_id: json(channel).data.record_id,
    });
    expect(rows[0]).toMatchObject({ customer_id: 'pia', decision_id: decisionId });
    const audit = await t.db
      .selectFrom('audit_log')
      .select(['action', 'actor'])
      .where('tenant_id', '=', a.tenant.id)
      .where('action', '=', 'export.controls')
      .execute();
    expect(audit).toEqual([{ action: 'export.controls', actor: a.tenant.email }]);
    const future = await admin.get('/backoffice/exports/controls.csv?from=2099-01-01');
    expect(parse(future.body, { columns: true })).toEqual([]);
    expect((await admin.get('/backoffice/exports/controls.csv?from=yesterday')).statusCode).toBe(
      400,
    );
    expect((await viewer.get('/backoffice/exports/controls.csv')).statusCode).toBe(200);
  });

  it('a partner the version does not list is a 404 page, and nothing is recorded', async () => {
    await admin.get(`/backoffice/decisions/${decisionId}`);
    const response = await admin.post(`/backoffice/decisions/${decisionId}/partners/unlisted`, {
      blocked: '1',
    });
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toContain('text/html');
    const rows = await t.db
      .selectFrom('partner_block_changes')
      .select('id')
      .where('partner_code', '=', 'unlisted')
      .execute();
    expect(rows).toEqual([]);
  });

  it('a user without consent_decisions:edit sees the partners without buttons, and may not post', async () => {
    const page = await viewer.get(`/backoffice/decisions/${decisionId}`);
    expect(page.statusCode).toBe(200);
    expect(textOf(page.body)).toContain('Zeta Bank (zeta-bank)');
    expect(page.body).not.toContain('Block Acme Insurance');
    const refused = await viewer.post(`/backoffice/decisions/${decisionId}/partners/acme-insure`, {
      blocked: '1',
    });
    expect(refused.statusCode).toBe(403);
  });

  it('a decision no longer in force shows its partners without buttons and says why; a post is a 409 page, nothing recorded', async () => {
    const api = apiOf(t.app, a.headers);
    const given = json(await api.decide('quinn', versionId, 'given')).data.decision_id as string;
    expect((await api.decide('quinn', versionId, 'withdraw')).statusCode).toBe(201);
    const page = await admin.get(`/backoffice/decisions/${given}`);
    expect(page.statusCode).toBe(200);
    expect(textOf(page.body)).toContain('Zeta Bank (zeta-bank)');
    expect(page.body).not.toContain('Block Zeta Bank');
    expect(textOf(page.body)).toContain(
      "Blocks change only on the customer's decision in force: their latest on the template, a given that has not lapsed.",
    );
    const refused = await admin.post(`/backoffice/decisions/${given}/partners/zeta-bank`, {
      blocked: '1',
    });
    expect(refused.statusCode).toBe(409);
    expect(refused.headers['content-type']).toContain('text/html');
    expect(textOf(refused.body)).toContain('The decision is no longer in force');
    const rows = await t.db
      .selectFrom('partner_block_changes')
      .select('id')
      .where('decision_id', '=', given)
      .execute();
    expect(rows).toEqual([]);
  });
});
