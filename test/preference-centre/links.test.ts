/**
 * The preference centre's links and sessions on both stores: a backend asks for a link
 * (defaults, limits, bad input), the link opens once into a session cookie, and every other use
 * of it (again, expired, altered, at another tenant's page) is refused with a page that shows
 * nothing of the customer and an audit entry. A session acts for its own customer alone: forged
 * forms, another tenant's page, an altered cookie and a missing form token are refused.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPartner } from '../../src/partners/index.js';
import {
  mintPreferenceLink,
  preferenceSecrets,
  purgeExpiredLinkUses,
  savePreferenceCentre,
} from '../../src/preference-centre/index.js';
import { createProduct } from '../../src/products/index.js';
import {
  changeDataCategoriesAs,
  changeRepresentationAs,
  getTemplateByCode,
  parseRepresentation,
  publishOutsideReview,
} from '../../src/templates/index.js';
import { apiOf } from '../helpers/api.js';
import { expectErrorShape, json, startTestApp, type TestApp } from '../helpers/app.js';
import { type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';

type Reply = LightMyRequestResponse;

describe.each(stores)('preference links on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let b: SeededTenant;
  let versionId: string;
  let templateName: string;
  const actorOf = (s: SeededTenant) =>
    ({
      tenantId: s.tenant.id,
      actorKind: 'tenant',
      actor: 'test',
      ip: 'local',
      userAgent: null,
    }) as const;

  beforeAll(async () => {
    t = await startTestApp(store, { LOG_INTEGRATE_INTERVAL_MS: '60000' });
    a = await seedTenant(t.db);
    b = await seedTenant(t.db);
    await t.db.transaction().execute(async (trx) => {
      await createPartner(trx, actorOf(a), a.tenant.id, { code: 'zeta-bank', name: 'Zeta Bank' });
      await createProduct(trx, actorOf(a), a.tenant.id, { code: 'savings', name: 'Savings' });
      await savePreferenceCentre(trx, actorOf(a), a.tenant.id, {
        display_name: 'Acme Bank',
        logo_url: null,
        accent_colour: null,
        header_colour: null,
        allowed_origins: ['https://shop.example'],
      });
    });
    const code = await seedTemplate(t.db, a.tenant.id);
    templateName = code;
    const version = await t.db
      .transaction()
      .execute((trx) =>
        publishOutsideReview(
          trx,
          actorOf(a),
          a.tenant.id,
          code,
          { tag: '1.0', content_html: '<p>Marker text 5e1f of the consent</p>' },
          { partners: ['zeta-bank'] },
        ),
      );
    versionId = version.id;
    for (const customer of ['alice', 'bob']) {
      const response = await apiOf(t.app, a.headers).decide(customer, versionId, 'given');
      expect(response.statusCode, response.body).toBe(201);
    }
  });
  afterAll(async () => {
    await t.close();
  });

  const askLink = (customer: string, body?: unknown, headers = a.headers) =>
    t.app.inject({
      method: 'POST',
      url: `/api/v1/customers/${encodeURIComponent(customer)}/preference-links`,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  const linkOf = async (customer: string, body?: unknown, headers = a.headers) => {
    const response = await askLink(customer, body, headers);
    expect(response.statusCode, response.body).toBe(201);
    const { url, expires_at } = json(response).data as { url: string; expires_at: string };
    return { url, path: pathOf(url), expiresAt: expires_at };
  };
  const pathOf = (url: string) => {
    const parsed = new URL(url);
    return `${parsed.pathname}${parsed.search}`;
  };
  const get = (url: string, cookie?: string) =>
    t.app.inject({ method: 'GET', url, headers: cookie ? { cookie } : {} });
  const cookieOf = (response: Reply) => {
    const set = response.headers['set-cookie'];
    const line = Array.isArray(set) ? set[0] : set;
    expect(line, 'a session cookie').toBeDefined();
    return { line: line as string, pair: (line as string).split(';')[0] as string };
  };
  const open = async (customer: string) => {
    const link = await linkOf(customer);
    const opened = await get(link.path);
    expect(opened.statusCode, opened.body).toBe(303);
    return cookieOf(opened).pair;
  };
  const pageOf = (s: SeededTenant) => `/preferences/${s.tenant.alias}`;
  const formToken = (body: string) => /name="_csrf" value="([^"]+)"/.exec(body)?.[1] ?? '';
  const post = (url: string, cookie: string, fields: Record<string, string>) =>
    t.app.inject({
      method: 'POST',
      url,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(fields).toString(),
    });
  /** Nothing of any customer: not the template, its text, partners or the page's sections. */
  const showsNothing = (response: Reply) => {
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    for (const secret of ['Marker text 5e1f', templateName, 'Zeta Bank', '_csrf', 'alice']) {
      expect(response.body).not.toContain(secret);
    }
  };
  const refusals = async (tenantId: string) =>
    (
      await t.db
        .selectFrom('audit_log')
        .select(['action', 'details', 'target'])
        .where('tenant_id', '=', tenantId)
        .where('action', '=', 'preference_link.refused')
        .execute()
    ).map((row) => JSON.parse(row.details ?? '{}').reason as string);

  it('answers a link on the page of the key’s tenant, for 15 minutes unless told', async () => {
    const before = Date.now();
    const link = await linkOf('alice');
    expect(link.url).toMatch(
      new RegExp(`^https?://[^/]+/preferences/${a.tenant.alias}/open\\?token=[A-Za-z0-9._-]+$`),
    );
    // The customer id is not readable in the link.
    expect(link.url).not.toContain('alice');
    const lifetime = Date.parse(link.expiresAt) - before;
    expect(lifetime).toBeGreaterThan(14 * 60 * 1000);
    expect(lifetime).toBeLessThanOrEqual(15 * 60 * 1000);
    const day = await linkOf('alice', { ttl_seconds: 86_400, locale: 'th' });
    expect(Date.parse(day.expiresAt) - before).toBeGreaterThan(86_400_000 - 60_000);
  });

  it('refuses bad input to the link request', async () => {
    for (const body of [
      { ttl_seconds: 86_401 },
      { ttl_seconds: 59 },
      { ttl_seconds: '900' },
      { locale: 'not a tag!' },
      { return_url: 'https://evil.example/back' },
      { return_url: 'https://shop.example.evil.example/' },
      { return_url: 'javascript:alert(1)' },
      { colour: 'red' },
    ]) {
      const response = await askLink('alice', body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(expectErrorShape(response).code).toBe('1001');
    }
    // A field is named by where it is, as the validation's own details name it.
    expect(
      json(await askLink('alice', { return_url: 'https://evil.example/back' })).details,
    ).toEqual([
      {
        field: 'body.return_url',
        issue: "must be on one of the origins allowed in the preference centre's settings",
      },
    ]);
    const text = await t.app.inject({
      method: 'POST',
      url: '/api/v1/customers/alice/preference-links',
      headers: { ...a.headers, 'content-type': 'text/plain' },
      payload: 'x',
    });
    expect(text.statusCode).toBe(415);
    const keyless = await askLink('alice', {}, {});
    expect(keyless.statusCode).toBe(401);
    expect((await linkOf('alice', { return_url: 'https://shop.example/account' })).url).toContain(
      '/open?token=',
    );
  });

  it('opens once: a session cookie scoped to the tenant’s page, then the page; again, refused', async () => {
    const link = await linkOf('alice', { return_url: 'https://shop.example/account' });
    const opened = await get(link.path);
    expect(opened.statusCode).toBe(303);
    expect(opened.headers.location).toBe(pageOf(a));
    const cookie = cookieOf(opened);
    expect(cookie.line).toContain(`Path=${pageOf(a)}`);
    expect(cookie.line).toContain('HttpOnly');
    expect(cookie.line).toContain('SameSite=Lax');
    const page = await get(pageOf(a), cookie.pair);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Marker text 5e1f');
    expect(page.body).toContain('Zeta Bank');
    expect(page.body).toContain('href="https://shop.example/account"');
    expect(page.headers['content-security-policy']).toContain(
      "frame-ancestors 'self' https://shop.example",
    );
    expect(page.headers['x-frame-options']).toBeUndefined();

    const again = await get(link.path);
    expect(again.statusCode).toBe(410);
    expect(again.body).toContain('already been used');
    expect(again.headers['set-cookie']).toBeUndefined();
    showsNothing(again);
    expect(await refusals(a.tenant.id)).toContain('reused');
  });

  it('forgets the use of a link only once the link has expired', async () => {
    const link = await linkOf('alice', { ttl_seconds: 60 });
    expect((await get(link.path)).statusCode).toBe(303);
    const linkUses = () =>
      t.db
        .selectFrom('preference_link_uses')
        .select('link_id')
        .where('expires_at', '=', link.expiresAt)
        .where('tenant_id', '=', a.tenant.id)
        .execute();
    expect(await linkUses()).toHaveLength(1);
    await purgeExpiredLinkUses(t.db, new Date(Date.parse(link.expiresAt) - 1000));
    expect(await linkUses()).toHaveLength(1);
    await purgeExpiredLinkUses(t.db, new Date(Date.parse(link.expiresAt) + 1000));
    expect(await linkUses()).toHaveLength(0);
  });

  it('a link framed in the tenant’s site gets a partitioned cookie sent cross-site', async () => {
    const link = await linkOf('alice');
    const opened = await t.app.inject({
      method: 'GET',
      url: link.path,
      headers: { 'sec-fetch-dest': 'iframe', 'sec-fetch-site': 'cross-site' },
    });
    const { line } = cookieOf(opened);
    expect(line).toContain('SameSite=None');
    expect(line).toContain('Secure');
    expect(line).toContain('Partitioned');
  });

  it('refuses an expired, an altered and another tenant’s link, audited, showing nothing', async () => {
    const secrets = preferenceSecrets(t.vault.dataKey);
    const expired = await mintPreferenceLink(
      t.db,
      secrets,
      'http://localhost',
      { tenantId: a.tenant.id, apiKeyId: a.apiKey.id },
      'alice',
      { ttl_seconds: 60 },
      new Date(Date.now() - 10 * 60 * 1000),
    );
    const late = await get(pathOf(expired.url));
    expect(late.statusCode).toBe(410);
    expect(late.body).toContain('expired');
    showsNothing(late);

    const link = await linkOf('alice');
    const token = new URL(link.url).searchParams.get('token') as string;
    // One character of the ciphertext changed: the authentication tag no longer matches.
    const parts = token.split('.');
    const body = parts[3] as string;
    parts[3] = `${body[0] === 'A' ? 'B' : 'A'}${body.slice(1)}`;
    const altered = await get(`${pageOf(a)}/open?token=${parts.join('.')}`);
    expect(altered.statusCode).toBe(400);
    showsNothing(altered);
    const garbage = await get(`${pageOf(a)}/open?token=not-a-token`);
    expect(garbage.statusCode).toBe(400);
    const none = await get(`${pageOf(a)}/open`);
    expect(none.statusCode).toBe(400);

    // Tenant b's link, opened at tenant a's page.
    const theirs = await linkOf('alice', undefined, b.headers);
    const elsewhere = await get(
      `${pageOf(a)}/open?token=${new URL(theirs.url).searchParams.get('token')}`,
    );
    expect(elsewhere.statusCode).toBe(400);
    expect(elsewhere.headers['set-cookie']).toBeUndefined();
    showsNothing(elsewhere);
    // Still unused at its own page.
    expect((await get(theirs.path)).statusCode).toBe(303);

    const reasons = await refusals(a.tenant.id);
    for (const reason of ['expired', 'invalid', 'other-tenant']) expect(reasons).toContain(reason);
  });

  it('a page without a live session shows nothing: no cookie, an altered one, another tenant’s', async () => {
    const none = await get(pageOf(a));
    expect(none.statusCode).toBe(401);
    showsNothing(none);
    const cookie = await open('alice');
    const [name, value] = cookie.split('=') as [string, string];
    // Another first character of the tag, which carries six of its bits (a last character's
    // low bits are padding: changed there, the token may decode to the same bytes).
    const parts = value.split('.');
    const tag = parts.at(-1) as string;
    parts[parts.length - 1] = `${tag[0] === 'A' ? 'B' : 'A'}${tag.slice(1)}`;
    const altered = await get(pageOf(a), `${name}=${parts.join('.')}`);
    expect(altered.statusCode).toBe(401);
    showsNothing(altered);
    // Tenant a's session sent to tenant b's page (a cookie copied by hand).
    const other = await get(pageOf(b), cookie);
    expect(other.statusCode).toBe(401);
    const unknown = await get('/preferences/no-such-tenant-7f2', cookie);
    expect(unknown.statusCode).toBe(404);
    showsNothing(unknown);
  });

  it("a session acts for its own customer alone: another customer's decision is not found", async () => {
    const alice = await open('alice');
    const page = await get(pageOf(a), alice);
    const token = formToken(page.body);
    const bobs = await apiOf(t.app, a.headers).decide('bob', versionId, 'given');
    const bobDecision = json(bobs).data.decision_id as string;
    const forged = await post(`${pageOf(a)}/partners`, alice, {
      _csrf: token,
      decision_id: bobDecision,
      partner_code: 'zeta-bank',
      blocked: 'true',
    });
    expect(forged.statusCode).toBe(404);
    showsNothing(forged);
    const blocks = await t.app.inject({
      method: 'GET',
      url: `/api/v1/customers/bob/consents/decisions/${bobDecision}/partners`,
      headers: a.headers,
    });
    expect(json(blocks).data).toEqual([
      {
        partner_code: 'zeta-bank',
        name: 'Zeta Bank',
        blocked: false,
        since: null,
        record_id: null,
      },
    ]);
  });

  it('refuses a form without its token, with another session’s, or sent from another site', async () => {
    const alice = await open('alice');
    const other = await open('alice');
    const otherToken = formToken((await get(pageOf(a), other)).body);
    const fields = { product_code: 'savings', channel: 'sms', blocked: 'true' };
    for (const [cookie, token] of [
      [alice, ''],
      [alice, otherToken],
    ] as const) {
      const response = await post(`${pageOf(a)}/channels`, cookie, { ...fields, _csrf: token });
      expect(response.statusCode).toBeGreaterThanOrEqual(400);
      expect(response.statusCode).toBeLessThan(500);
    }
    const token = formToken((await get(pageOf(a), alice)).body);
    const crossSite = await t.app.inject({
      method: 'POST',
      url: `${pageOf(a)}/channels`,
      headers: {
        cookie: alice,
        'content-type': 'application/x-www-form-urlencoded',
        'sec-fetch-site': 'cross-site',
      },
      payload: new URLSearchParams({ ...fields, _csrf: token }).toString(),
    });
    expect(crossSite.statusCode).toBe(403);
    const channels = await t.app.inject({
      method: 'GET',
      url: '/api/v1/customers/alice/channels',
      headers: a.headers,
    });
    const sms = (
      json(channels).data as { product_code: string; channel: string; blocked: boolean }[]
    ).find((c) => c.product_code === 'savings' && c.channel === 'sms');
    expect(sms?.blocked).toBe(false);
  });

  it('a consent to sensitive data asks for a separate tick; without it nothing is recorded, with it the receipt shows the act', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const sensitive = await t.db.transaction().execute(async (trx) => {
      const published = await publishOutsideReview(trx, actorOf(a), a.tenant.id, code, {
        tag: '1.0',
        content_html: '<p>Health data for underwriting</p>',
      });
      await changeDataCategoriesAs(
        trx,
        actorOf(a),
        await getTemplateByCode(trx, a.tenant.id, code),
        ['health'],
      );
      return published;
    });
    const dora = 'dora';
    expect((await apiOf(t.app, a.headers).decide(dora, sensitive.id, 'reject')).statusCode).toBe(
      201,
    );
    const cookie = await open(dora);
    const page = (await get(pageOf(a), cookie)).body;
    const sentence =
      'I explicitly consent to the processing of the sensitive personal data described in this text.';
    expect(page).toContain(`name="explicit" value="true" required> ${sentence}`);
    const fields = {
      _csrf: formToken(page),
      version_id: sensitive.id,
      decision: 'given',
      form_id: 'sensitive-form-1',
    };
    const stored = () =>
      t.db
        .selectFrom('decisions')
        .select(['id', 'decision'])
        .where('tenant_id', '=', a.tenant.id)
        .where('consent_version_id', '=', sensitive.id)
        .execute();

    const refused = await post(`${pageOf(a)}/decisions`, cookie, fields);
    expect(refused.statusCode).toBe(303);
    expect(refused.headers.location).toContain('done=explicitConsentRequired');
    expect((await get(refused.headers.location as string, cookie)).body).toContain(
      'tick the box to confirm it explicitly',
    );
    expect((await stored()).map((d) => d.decision)).toEqual(['reject']);

    const given = await post(`${pageOf(a)}/decisions`, cookie, {
      ...fields,
      form_id: 'sensitive-form-2',
      explicit: 'true',
    });
    expect(given.statusCode).toBe(303);
    const recordId = /record=([0-9a-f-]{36})/.exec(given.headers.location as string)?.[1];
    const receipt = await t.app.inject({
      method: 'GET',
      url: `/api/v1/decisions/${recordId}/receipt?wait=true`,
      headers: a.headers,
    });
    expect(receipt.statusCode, receipt.body).toBe(200);
    expect(json(receipt).data.opening).toMatchObject({
      via: 'preference-centre',
      explicit: { method: 'separate-tick', text_shown: sentence },
    });
  });

  it('a template whose rule says who may decide for whom is not decided on the page: it says so, and nothing is recorded', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const ruled = await t.db.transaction().execute(async (trx) => {
      const published = await publishOutsideReview(trx, actorOf(a), a.tenant.id, code, {
        tag: '1.0',
        content_html: '<p>Savings for minors</p>',
      });
      await changeRepresentationAs(
        trx,
        actorOf(a),
        await getTemplateByCode(trx, a.tenant.id, code),
        parseRepresentation('under-10=representative'),
      );
      return published;
    });
    const erin = 'erin';
    const cookie = await open(erin);
    const page = (await get(pageOf(a), cookie)).body;
    const refused = await post(`${pageOf(a)}/decisions`, cookie, {
      _csrf: formToken(page),
      version_id: ruled.id,
      decision: 'given',
      form_id: 'ruled-form-1',
    });
    expect(refused.statusCode).toBe(303);
    expect(refused.headers.location).toContain('done=representationRefused');
    expect((await get(refused.headers.location as string, cookie)).body).toContain(
      'This consent is given with the person who acts for you (a parent or guardian)',
    );
    const stored = await t.db
      .selectFrom('decisions')
      .select('id')
      .where('tenant_id', '=', a.tenant.id)
      .where('consent_version_id', '=', ruled.id)
      .execute();
    expect(stored).toEqual([]);
  });

  it('refuses bad form input with a page, and records nothing', async () => {
    const alice = await open('alice');
    const token = formToken((await get(pageOf(a), alice)).body);
    const cases: [string, Record<string, string>, number][] = [
      ['channels', { product_code: 'no-such-product', channel: 'sms', blocked: 'true' }, 404],
      ['channels', { product_code: 'savings', channel: 'pigeon', blocked: 'true' }, 404],
      ['channels', { product_code: 'savings', channel: 'sms', blocked: 'yes' }, 400],
      ['channels', { product_code: 'savings', channel: 'sms', blocked: 'true', extra: 'x' }, 400],
      ['decisions', { version_id: 'not-an-id', decision: 'given', form_id: 'f1' }, 400],
      ['decisions', { version_id: versionId, decision: 'reject', form_id: 'f1' }, 400],
      [
        'decisions',
        { version_id: '00000000-0000-7000-8000-000000000000', decision: 'given', form_id: 'f1' },
        404,
      ],
      ['partners', { decision_id: versionId, partner_code: 'zeta-bank', blocked: 'true' }, 404],
    ];
    for (const [form, fields, status] of cases) {
      const response = await post(`${pageOf(a)}/${form}`, alice, { ...fields, _csrf: token });
      expect(response.statusCode, `${form} ${JSON.stringify(fields)}`).toBe(status);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      showsNothing(response);
    }
  });

  it('a change made on the page is recorded via the preference centre, audited, and shown with its receipt id', async () => {
    const carol = 'carol';
    const given = await apiOf(t.app, a.headers).decide(carol, versionId, 'given');
    expect(given.statusCode).toBe(201);
    const cookie = await open(carol);
    const token = formToken((await get(pageOf(a), cookie)).body);
    const blocked = await post(`${pageOf(a)}/channels`, cookie, {
      _csrf: token,
      product_code: 'savings',
      channel: 'sms',
      blocked: 'true',
    });
    expect(blocked.statusCode).toBe(303);
    const recordId = /record=([0-9a-f-]{36})/.exec(blocked.headers.location as string)?.[1];
    expect(recordId).toBeDefined();
    const shown = await get(blocked.headers.location as string, cookie);
    expect(shown.body).toContain(`role="status"`);
    expect(shown.body).toContain(recordId);
    const receipt = await t.app.inject({
      method: 'GET',
      url: `/api/v1/channel-changes/${recordId}/receipt?wait=true`,
      headers: a.headers,
    });
    expect(receipt.statusCode, receipt.body).toBe(200);
    expect(json(receipt).data.opening.via).toBe('preference-centre');
    expect(json(receipt).data.opening.api_key_id).toBe(a.apiKey.id);
    const audit = await t.db
      .selectFrom('audit_log')
      .select(['actor_kind', 'target', 'details'])
      .where('tenant_id', '=', a.tenant.id)
      .where('action', '=', 'preference_centre.channel_change')
      .execute();
    expect(audit).toContainEqual({
      actor_kind: 'customer',
      target: recordId,
      details: JSON.stringify({ product_code: 'savings', channel: 'sms', blocked: true }),
    });
    // The same form again changes nothing.
    const again = await post(`${pageOf(a)}/channels`, cookie, {
      _csrf: token,
      product_code: 'savings',
      channel: 'sms',
      blocked: 'true',
    });
    expect(again.headers.location).toBe(`${pageOf(a)}?done=unchanged#channels-title`);
  });
});
