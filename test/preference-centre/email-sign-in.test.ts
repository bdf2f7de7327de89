/**
 * E-mail sign-in to the preference centre on both stores, with a real SMTP server: an address
 * the tenant knows gets a code that opens its page; an unknown one gets the very same page and no
 * mail; five codes an hour per address, alike for both; a code dies after three wrong tries, is
 * used once, expires, and fits only its tenant and address; records made afterwards carry the
 * tenant's e-mail sign-in key and `via`.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, revokeApiKey } from '../../src/api-keys/index.js';
import { registry } from '../../src/app/kinds.js';
import { eraseCustomer } from '../../src/erasure/index.js';
import { purgeOldCodes, savePreferenceCentre } from '../../src/preference-centre/index.js';
import { createProduct } from '../../src/products/index.js';
import { publishOutsideReview } from '../../src/templates/index.js';
import { apiOf } from '../helpers/api.js';
import { json, startTestApp, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/postgres-server.js';
import {
  type SeededTenant,
  seedPublishedVersion,
  seedTemplate,
  seedTenant,
  unique,
} from '../helpers/seed.js';
import { type SmtpListener, startSmtpServer } from '../helpers/smtp.js';
import { stores } from '../helpers/stores.js';

type Reply = LightMyRequestResponse;

describe.each(stores)('e-mail sign-in to the preference centre on $name', (store) => {
  let smtp: SmtpListener;
  let t: TestApp;
  /** Sign-in on (its own key), the other tenant with sign-in on, and one with it off. */
  let a: SeededTenant;
  let b: SeededTenant;
  let off: SeededTenant;
  let emailKeyA: string;
  let versionId: string;
  let versionIdB: string;

  const actorOf = (s: SeededTenant) =>
    ({
      tenantId: s.tenant.id,
      actorKind: 'tenant',
      actor: 'test',
      ip: 'local',
      userAgent: null,
    }) as const;
  const settings = (emailKeyId: string | null) => ({
    display_name: 'Acme Mail',
    logo_url: null,
    accent_colour: null,
    header_colour: null,
    allowed_origins: [],
    email_key_id: emailKeyId,
  });

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp(store, { SMTP_URL: smtp.url, LOG_INTEGRATE_INTERVAL_MS: '60000' });
    [a, b, off] = [await seedTenant(t.db), await seedTenant(t.db), await seedTenant(t.db)];
    const keyA = await createApiKey(t.db, a.tenant.id, { name: 'e-mail sign-in' });
    emailKeyA = keyA.id;
    await t.db.transaction().execute(async (trx) => {
      await savePreferenceCentre(trx, actorOf(a), a.tenant.id, settings(emailKeyA));
      await savePreferenceCentre(trx, actorOf(b), b.tenant.id, settings(b.apiKey.id));
      await savePreferenceCentre(trx, actorOf(off), off.tenant.id, settings(null));
      await createProduct(trx, actorOf(a), a.tenant.id, { code: 'savings', name: 'Savings' });
    });
    const code = await seedTemplate(t.db, a.tenant.id);
    const version = await t.db.transaction().execute((trx) =>
      publishOutsideReview(trx, actorOf(a), a.tenant.id, code, {
        tag: '1.0',
        content_html: '<p>Marker text 91c4 of the consent</p>',
      }),
    );
    versionId = version.id;
    const codeB = await seedTemplate(t.db, b.tenant.id);
    versionIdB = (
      await t.db.transaction().execute((trx) =>
        publishOutsideReview(trx, actorOf(b), b.tenant.id, codeB, {
          tag: '1.0',
          content_html: '<p>Tenant b</p>',
        }),
      )
    ).id;
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  const pageOf = (s: SeededTenant) => `/preferences/${s.tenant.alias}`;
  /** An address of a customer tenant `s` knows: one decision recorded for it by its backend. */
  const known = async (s: SeededTenant = a) => {
    const address = `${unique('known')}@example.com`;
    const version = s === a ? versionId : versionIdB;
    const given = await apiOf(t.app, s.headers).decide(address, version, 'given');
    expect(given.statusCode, given.body).toBe(201);
    return address;
  };
  const unknown = () => `${unique('nobody')}@example.com`;
  const cookiePairs = (response: Reply) => {
    const set = response.headers['set-cookie'];
    const lines = set === undefined ? [] : Array.isArray(set) ? set : [set];
    return lines.map((line) => line.split(';')[0] as string);
  };
  const fieldOf = (body: string, name: string) =>
    new RegExp(`name="${name}" value="([^"]*)"`).exec(body)?.[1] ?? '';
  /** The sign-in form as a browser gets it: its form cookie and token. */
  const signInForm = async (s: SeededTenant = a) => {
    const response = await t.app.inject({ method: 'GET', url: `${pageOf(s)}/sign-in` });
    expect(response.statusCode, response.body).toBe(200);
    const cookie = cookiePairs(response).find((c) => c.includes('preference_form='));
    expect(cookie).toBeDefined();
    return { cookie: cookie as string, token: fieldOf(response.body, '_csrf') };
  };
  type Form = Awaited<ReturnType<typeof signInForm>>;
  const post = (url: string, form: Form | undefined, fields: Record<string, string>) =>
    t.app.inject({
      method: 'POST',
      url,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...(form ? { cookie: form.cookie } : {}),
      },
      payload: new URLSearchParams({
        ...(form ? { _csrf: form.token } : {}),
        ...fields,
      }).toString(),
    });
  const askCode = (form: Form, email: string, s: SeededTenant = a) =>
    post(`${pageOf(s)}/sign-in`, form, { email });
  const giveCode = (form: Form, fields: { code_id: string; email: string; code: string }, s = a) =>
    post(`${pageOf(s)}/code`, form, fields);
  /** The code e-mailed to an address (the nth, from 1). */
  const mailedCode = async (address: string, nth = 1) => {
    const mail = await smtp.next(
      (m) =>
        m.to.includes(address) &&
        smtp.received.filter((r) => r.to.includes(address)).indexOf(m) === nth - 1,
    );
    const code = /\b(\d{6})\b/.exec(mail.text)?.[1];
    expect(code, mail.text).toBeDefined();
    return { mail, code: code as string };
  };
  /** Asks for a code for a known address and reads it from the mail. */
  const codeFor = async (address: string, form: Form, nth = 1) => {
    const asked = await askCode(form, address);
    expect(asked.statusCode, asked.body).toBe(200);
    const codeId = fieldOf(asked.body, 'code_id');
    const { code } = await mailedCode(address, nth);
    return { codeId, code };
  };
  const otherCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');
  const auditOf = (s: SeededTenant) =>
    t.db
      .selectFrom('audit_log')
      .select(['action', 'actor_kind', 'target', 'details'])
      .where('tenant_id', '=', s.tenant.id)
      .where('action', 'like', 'preference_code.%')
      .execute();
  const reasonsOf = async (s: SeededTenant, codeId: string) =>
    (await auditOf(s))
      .filter((e) => e.action === 'preference_code.refused' && e.target === codeId)
      .map((e) => JSON.parse(e.details ?? '{}').reason as string);
  const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

  it('shows the address form, labelled, with the e-mail autocomplete, in English and Thai', async () => {
    const en = await t.app.inject({ method: 'GET', url: `${pageOf(a)}/sign-in` });
    expect(en.statusCode).toBe(200);
    expect(en.headers['content-type']).toMatch(/^text\/html/);
    expect(en.body).toContain('<html lang="en">');
    expect(en.body).toContain('<label for="email">E-mail address</label>');
    expect(en.body).toMatch(/<input type="email" id="email" name="email"[^>]*autocomplete="email"/);
    expect(en.body).not.toContain('<script');
    const th = await t.app.inject({
      method: 'GET',
      url: `${pageOf(a)}/sign-in`,
      headers: { 'accept-language': 'th' },
    });
    expect(th.body).toContain('<html lang="th">');
    expect(th.body).toContain('<label for="email">อีเมล</label>');
  });

  it('a known address gets a mail with a code that signs in; the page then shows its consent', async () => {
    const address = await known();
    const form = await signInForm();
    const asked = await askCode(form, `  ${address.toUpperCase()} `);
    expect(asked.statusCode).toBe(200);
    expect(asked.body).toContain('If this address is known, a code was sent to it.');
    expect(asked.body).toMatch(/autocomplete="one-time-code"/);
    expect(fieldOf(asked.body, 'email')).toBe(address);
    const { mail, code } = await mailedCode(address);
    expect(mail.to).toEqual([address]);
    expect(mail.subject).toBe('Your code for Acme Mail');
    expect(mail.text).toContain('valid for 10 minutes');
    const codeId = fieldOf(asked.body, 'code_id');
    const signedIn = await giveCode(form, { code_id: codeId, email: address, code });
    expect(signedIn.statusCode, signedIn.body).toBe(303);
    expect(signedIn.headers.location).toBe(pageOf(a));
    const session = cookiePairs(signedIn).find((c) => c.includes('preference_session='));
    expect(session).toBeDefined();
    const page = await t.app.inject({
      method: 'GET',
      url: pageOf(a),
      headers: { cookie: session as string },
    });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Marker text 91c4');
    expect(page.body).toContain('You agreed on');

    const entries = await auditOf(a);
    expect(entries).toContainEqual(
      expect.objectContaining({
        action: 'preference_code.used',
        actor_kind: 'customer',
        target: codeId,
      }),
    );
    // The address is neither in the audit log nor in the table of codes.
    expect(JSON.stringify(entries)).not.toContain('@');
    const rows = await t.db.selectFrom('preference_codes').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain('@');
    expect(JSON.stringify(rows)).not.toContain(code);
  });

  it('in Thai, the mail is in Thai too', async () => {
    const address = await known();
    const form = await signInForm();
    const asked = await t.app.inject({
      method: 'POST',
      url: `${pageOf(a)}/sign-in`,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'accept-language': 'th-TH,th;q=0.9',
        cookie: form.cookie,
      },
      payload: new URLSearchParams({ _csrf: form.token, email: address }).toString(),
    });
    expect(asked.statusCode).toBe(200);
    expect(asked.body).toContain('<html lang="th">');
    const { mail } = await mailedCode(address);
    expect(mail.subject).toBe('รหัสของคุณสำหรับ Acme Mail');
  });

  it('an unknown address gets the identical page and no mail', async () => {
    const form = await signInForm();
    const stranger = unknown();
    const address = await known();
    const forStranger = await askCode(form, stranger);
    const forCustomer = await askCode(form, address);
    expect(forStranger.statusCode).toBe(200);
    expect(forCustomer.statusCode).toBe(200);
    const bare = (response: Reply, email: string) =>
      response.body.replace(fieldOf(response.body, 'code_id'), 'ID').replace(email, 'ADDRESS');
    expect(bare(forStranger, stranger)).toBe(bare(forCustomer, address));
    expect(forStranger.headers['set-cookie']).toEqual(forCustomer.headers['set-cookie']);
    await mailedCode(address);
    await settle();
    expect(smtp.received.filter((m) => m.to.includes(stranger))).toEqual([]);
    // A row all the same, with a code that was never sent.
    const rows = await t.db
      .selectFrom('preference_codes')
      .select('id')
      .where('id', '=', fieldOf(forStranger.body, 'code_id'))
      .execute();
    expect(rows).toHaveLength(1);
  });

  it('the sixth code in an hour is refused, alike for a known and an unknown address', async () => {
    const form = await signInForm();
    const address = await known();
    const stranger = unknown();
    const last: Reply[] = [];
    for (const email of [address, stranger]) {
      for (let i = 0; i < 5; i += 1) {
        expect((await askCode(form, email)).statusCode).toBe(200);
      }
      const sixth = await askCode(form, email);
      expect(sixth.statusCode).toBe(429);
      expect(sixth.body).toContain('Try again later');
      expect(sixth.body).not.toContain('code_id');
      last.push(sixth);
    }
    expect(last[0]?.body).toBe(last[1]?.body);
    // Another address is not held back by these.
    expect((await askCode(form, unknown())).statusCode).toBe(200);
  });

  it('three wrong codes kill the code: the right one then fails', async () => {
    const address = await known();
    const form = await signInForm();
    const { codeId, code } = await codeFor(address, form);
    const wrong = otherCode(code);
    for (const expected of [400, 400]) {
      const response = await giveCode(form, { code_id: codeId, email: address, code: wrong });
      expect(response.statusCode).toBe(expected);
      expect(response.body).toContain('This code is not right.');
      expect(response.headers['set-cookie']).toBeUndefined();
    }
    const third = await giveCode(form, { code_id: codeId, email: address, code: wrong });
    expect(third.statusCode).toBe(410);
    expect(third.body).toContain('Ask for a new code');
    const right = await giveCode(form, { code_id: codeId, email: address, code });
    expect(right.statusCode).toBe(410);
    expect(cookiePairs(right).some((c) => c.includes('preference_session='))).toBe(false);
    expect(await reasonsOf(a, codeId)).toEqual(['wrong', 'wrong', 'wrong', 'dead']);
  });

  it('a used code fails', async () => {
    const address = await known();
    const form = await signInForm();
    const { codeId, code } = await codeFor(address, form);
    expect((await giveCode(form, { code_id: codeId, email: address, code })).statusCode).toBe(303);
    const again = await giveCode(form, { code_id: codeId, email: address, code });
    expect(again.statusCode).toBe(410);
    expect(cookiePairs(again).some((c) => c.includes('preference_session='))).toBe(false);
    expect(await reasonsOf(a, codeId)).toEqual(['used']);
  });

  it('an expired code fails', async () => {
    const address = await known();
    const form = await signInForm();
    const { codeId, code } = await codeFor(address, form);
    await t.db
      .updateTable('preference_codes')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', codeId)
      .execute();
    const late = await giveCode(form, { code_id: codeId, email: address, code });
    expect(late.statusCode).toBe(410);
    expect(await reasonsOf(a, codeId)).toEqual(['expired']);
  });

  it('forgets a code only once it is an hour old', async () => {
    const address = await known();
    const form = await signInForm();
    const { codeId } = await codeFor(address, form);
    const kept = () =>
      t.db.selectFrom('preference_codes').select('id').where('id', '=', codeId).execute();
    await purgeOldCodes(t.db, new Date(Date.now() + 59 * 60 * 1000));
    expect(await kept()).toHaveLength(1);
    await purgeOldCodes(t.db, new Date(Date.now() + 61 * 60 * 1000));
    expect(await kept()).toHaveLength(0);
  });

  it('a code fits only its own address and tenant', async () => {
    const address = await known();
    const form = await signInForm();
    const { codeId, code } = await codeFor(address, form);
    const otherAddress = await giveCode(form, { code_id: codeId, email: await known(), code });
    expect(otherAddress.statusCode).toBe(400);
    expect(cookiePairs(otherAddress).some((c) => c.includes('preference_session='))).toBe(false);
    expect(await reasonsOf(a, codeId)).toEqual(['other-address']);

    // Tenant b's code, given at tenant a's page.
    const theirs = await known(b);
    const formB = await signInForm(b);
    const askedB = await askCode(formB, theirs, b);
    const codeIdB = fieldOf(askedB.body, 'code_id');
    const { code: codeB } = await mailedCode(theirs);
    const elsewhere = await giveCode(form, { code_id: codeIdB, email: theirs, code: codeB });
    expect(elsewhere.statusCode).toBe(400);
    expect(
      (await auditOf(a)).some(
        (e) => e.action === 'preference_code.refused' && e.details?.includes('unknown'),
      ),
    ).toBe(true);
    // Still good at its own page.
    const own = await giveCode(formB, { code_id: codeIdB, email: theirs, code: codeB }, b);
    expect(own.statusCode).toBe(303);
    // And the right code still signs in at tenant a, the refusals aside.
    expect((await giveCode(form, { code_id: codeId, email: address, code })).statusCode).toBe(303);
  });

  it("erasing the customer drops their codes' look-up with them", async () => {
    const address = await known();
    const form = await signInForm();
    await codeFor(address, form);
    const lookup = t.vault.lookup(a.tenant.id, address);
    const codes = () =>
      t.db.selectFrom('preference_codes').select('id').where('lookup', '=', lookup).execute();
    expect(await codes()).toHaveLength(1);
    await eraseCustomer(t.db, t.vault, registry, a.tenant.id, address, {
      actorKind: 'tenant',
      actor: 'test',
      ip: 'local',
      userAgent: null,
    });
    expect(await codes()).toEqual([]);
  });

  it('is not found once the key it acts under is revoked', async () => {
    const d = await seedTenant(t.db);
    const key = await createApiKey(t.db, d.tenant.id, { name: 'e-mail sign-in' });
    await t.db
      .transaction()
      .execute((trx) => savePreferenceCentre(trx, actorOf(d), d.tenant.id, settings(key.id)));
    expect((await t.app.inject({ method: 'GET', url: `${pageOf(d)}/sign-in` })).statusCode).toBe(
      200,
    );
    await t.db.transaction().execute((trx) => revokeApiKey(trx, d.tenant.id, key.id));
    expect((await t.app.inject({ method: 'GET', url: `${pageOf(d)}/sign-in` })).statusCode).toBe(
      404,
    );
  });

  it('a page without a session offers the e-mail sign-in where it is on, and only there', async () => {
    const ended = await t.app.inject({ method: 'GET', url: pageOf(a) });
    expect(ended.statusCode).toBe(401);
    expect(ended.body).toContain(`href="${pageOf(a)}/sign-in"`);
    const elsewhere = await t.app.inject({ method: 'GET', url: pageOf(off) });
    expect(elsewhere.statusCode).toBe(401);
    expect(elsewhere.body).not.toContain('/sign-in');
  });

  it('is not found when the tenant has e-mail sign-in off', async () => {
    for (const [method, path] of [
      ['GET', 'sign-in'],
      ['POST', 'sign-in'],
      ['POST', 'code'],
    ] as const) {
      const response = await t.app.inject({ method, url: `${pageOf(off)}/${path}` });
      expect(response.statusCode, `${method} ${path}`).toBe(404);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
    }
  });

  it('refuses bad input with a page: no address, not an address, a code not of 6 digits', async () => {
    const form = await signInForm();
    const none = await post(`${pageOf(a)}/sign-in`, form, {});
    expect(none.statusCode).toBe(400);
    expect(none.headers['content-type']).toMatch(/^text\/html/);
    for (const email of ['', 'not an address', 'alice@', '@example.com']) {
      const response = await askCode(form, email);
      expect(response.statusCode, email).toBe(400);
      expect(response.body).toContain('Enter an e-mail address');
      expect(response.body).toContain('aria-invalid="true"');
    }
    const address = await known();
    const { codeId, code } = await codeFor(address, form);
    for (const bad of ['12345', '1234567', 'abcdef', '']) {
      const response = await giveCode(form, { code_id: codeId, email: address, code: bad });
      expect(response.statusCode, bad).toBe(400);
      expect(response.body).toContain('Enter the 6 digits of the code.');
    }
    // None of those counted as a try.
    expect((await giveCode(form, { code_id: codeId, email: address, code })).statusCode).toBe(303);
  });

  it('refuses a form without its token or sent from another site', async () => {
    const form = await signInForm();
    const address = unknown();
    const noCookie = await post(`${pageOf(a)}/sign-in`, undefined, {
      _csrf: form.token,
      email: address,
    });
    expect(noCookie.statusCode).toBe(403);
    const otherToken = await post(
      `${pageOf(a)}/sign-in`,
      { ...form, token: 'x'.repeat(43) },
      {
        email: address,
      },
    );
    expect(otherToken.statusCode).toBe(403);
    const crossSite = await t.app.inject({
      method: 'POST',
      url: `${pageOf(a)}/sign-in`,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'sec-fetch-site': 'cross-site',
        cookie: form.cookie,
      },
      payload: new URLSearchParams({ _csrf: form.token, email: address }).toString(),
    });
    expect(crossSite.statusCode).toBe(403);
    const rows = await t.db
      .selectFrom('preference_codes')
      .select('id')
      .where('lookup', '=', t.vault.lookup(a.tenant.id, address))
      .execute();
    expect(rows).toEqual([]);
  });

  it('records made after an e-mail sign-in carry the e-mail sign-in key and via', async () => {
    const address = await known();
    const form = await signInForm();
    const { codeId, code } = await codeFor(address, form);
    const signedIn = await giveCode(form, { code_id: codeId, email: address, code });
    const session = cookiePairs(signedIn).find((c) => c.includes('preference_session='));
    const page = await t.app.inject({
      method: 'GET',
      url: pageOf(a),
      headers: { cookie: session as string },
    });
    const blocked = await t.app.inject({
      method: 'POST',
      url: `${pageOf(a)}/channels`,
      headers: {
        cookie: session as string,
        'content-type': 'application/x-www-form-urlencoded',
      },
      payload: new URLSearchParams({
        _csrf: fieldOf(page.body, '_csrf'),
        product_code: 'savings',
        channel: 'sms',
        blocked: 'true',
      }).toString(),
    });
    expect(blocked.statusCode, blocked.body).toBe(303);
    const recordId = /record=([0-9a-f-]{36})/.exec(blocked.headers.location as string)?.[1];
    const receipt = await t.app.inject({
      method: 'GET',
      url: `/api/v1/channel-changes/${recordId}/receipt?wait=true`,
      headers: a.headers,
    });
    expect(receipt.statusCode, receipt.body).toBe(200);
    expect(json(receipt).data.opening.via).toBe('preference-centre');
    expect(json(receipt).data.opening.api_key_id).toBe(emailKeyA);
    expect(emailKeyA).not.toBe(a.apiKey.id);
  });
});

describe.each(stores)('e-mail sign-in without a reachable SMTP server on $name', (store) => {
  let none: TestApp;
  let down: TestApp;
  const tenants = new Map<TestApp, SeededTenant>();
  const setUp = async (t: TestApp) => {
    const a = await seedTenant(t.db);
    await t.db.transaction().execute((trx) =>
      savePreferenceCentre(
        trx,
        { tenantId: a.tenant.id, actorKind: 'tenant', actor: 'test', ip: 'local', userAgent: null },
        a.tenant.id,
        {
          display_name: null,
          logo_url: null,
          accent_colour: null,
          header_colour: null,
          allowed_origins: [],
          email_key_id: a.apiKey.id,
        },
      ),
    );
    tenants.set(t, a);
  };
  beforeAll(async () => {
    none = await startTestApp(store);
    // A port nothing listens on: every delivery fails at once.
    down = await startTestApp(store, { SMTP_URL: `smtp://127.0.0.1:${await freePort()}` });
    await setUp(none);
    await setUp(down);
  });
  afterAll(async () => {
    await none?.close();
    await down?.close();
  });

  it('without SMTP_URL, is not found, the setting on or not', async () => {
    const a = tenants.get(none) as SeededTenant;
    const response = await none.app.inject({
      method: 'GET',
      url: `/preferences/${a.tenant.alias}/sign-in`,
    });
    expect(response.statusCode).toBe(404);
  });

  it('when the mail cannot be sent, the answer is the same page all the same', async () => {
    const a = tenants.get(down) as SeededTenant;
    const base = `/preferences/${a.tenant.alias}`;
    const versionId = (await seedPublishedVersion(down.db, a.tenant.id)).id;
    const address = 'known-down@example.com';
    const given = await apiOf(down.app, a.headers).decide(address, versionId, 'given');
    expect(given.statusCode, given.body).toBe(201);
    const form = await down.app.inject({ method: 'GET', url: `${base}/sign-in` });
    const cookie = String(form.headers['set-cookie']).split(';')[0] as string;
    const token = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1] ?? '';
    const asked = await down.app.inject({
      method: 'POST',
      url: `${base}/sign-in`,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: token, email: address }).toString(),
    });
    expect(asked.statusCode).toBe(200);
    expect(asked.body).toContain('If this address is known, a code was sent to it.');
  });
});
