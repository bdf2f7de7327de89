import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiOf } from '../helpers/api.js';
import type { TestApp } from '../helpers/app.js';
import { seedPublishedSystem } from '../helpers/cookies.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { storeAgnostic } from '../helpers/stores.js';
import { choose, standardChoice } from './cookies-support.js';
import { operator, PageClient, signedIn, startBackofficeApp, textOf } from './support.js';

/**
 * Every back-office route, checked the same three ways: a visitor is sent to sign in, a form
 * without its token is refused and changes nothing, and the other kind of account is refused.
 */
describe.each(storeAgnostic)('every back-office route on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let other: SeededTenant;
  let code: string;
  let draftId: string;
  const someVisitor = '0190e8a0-0000-7000-8000-0000000000aa';

  beforeAll(async () => {
    t = await startBackofficeApp(store);
    a = await seedTenant(t.db);
    other = await seedTenant(t.db);
    code = await seedTemplate(t.db, a.tenant.id);
    const page = await signedIn(t.app, a.tenant.email);
    const made = await page.submit(
      `/backoffice/templates/${code}/versions/new`,
      `/backoffice/templates/${code}/versions`,
      { tag: '9.0', content_html: '<p>Draft</p>' },
    );
    draftId = /\/versions\/([0-9a-f-]{36})/.exec(String(made.headers.location))?.[1] ?? '';
    expect(draftId).not.toBe('');
    // A customer with a record, whom no refused form may erase.
    const version = await publish(t.db, a.tenant.id, code);
    const decided = await apiOf(t.app, a.headers).decide(
      'someone',
      version.consent_version_id,
      'given',
    );
    expect(decided.statusCode).toBe(201);
    // And a website visitor with a choice, whom no refused form may erase either.
    const site = await seedPublishedSystem(t.db, a.tenant.id);
    await choose(t.app, site, 'accept-all', standardChoice(true), { visitor: someVisitor });
  });
  afterAll(async () => {
    await t.close();
  });

  const tenantPages = () => [
    '/backoffice/dashboard',
    '/backoffice/templates',
    '/backoffice/templates/new',
    `/backoffice/templates/${code}`,
    `/backoffice/templates/${code}/versions/new`,
    `/backoffice/templates/${code}/versions/${draftId}`,
    `/backoffice/templates/${code}/versions/${draftId}/review`,
    '/backoffice/api-keys',
    `/backoffice/api-keys/${a.apiKey.id}`,
    `/backoffice/api-keys/${a.apiKey.id}/revoke`,
    '/backoffice/customers?customer_id=someone',
    '/backoffice/customers/erase?customer_id=someone',
    '/backoffice/cookies/visitors/erase',
    '/backoffice/exports',
    '/backoffice/exports/decisions.csv',
    '/backoffice/audit',
    '/backoffice/audit.csv',
    '/backoffice/log',
    '/backoffice/decisions/0190e8a0-0000-7000-8000-000000000000/receipt',
  ];
  const tenantForms = () =>
    [
      ['/backoffice/templates', { code: 'made_without_token', name: 'x' }],
      [`/backoffice/templates/${code}/versions`, { tag: '9.9', content_html: '<p>x</p>' }],
      [`/backoffice/templates/${code}/preview`, { content_html: '<p>x</p>' }],
      [
        `/backoffice/templates/${code}/versions/${draftId}`,
        { tag: '9.8', content_html: '<p>x</p>' },
      ],
      [`/backoffice/templates/${code}/versions/${draftId}/submit`, {}],
      [`/backoffice/templates/${code}/versions/${draftId}/pass`, {}],
      [`/backoffice/templates/${code}/versions/${draftId}/approve`, {}],
      ['/backoffice/api-keys', { name: 'made without token' }],
      [`/backoffice/api-keys/${a.apiKey.id}/revoke`, {}],
      ['/backoffice/customers/erase', { customer_id: 'someone', confirm: 'someone' }],
      ['/backoffice/cookies/visitors/erase/confirmation', { visitor: someVisitor }],
      ['/backoffice/cookies/visitors/erase', { visitor: someVisitor, confirm: 'true' }],
    ] as const;
  const operatorPages = () => [
    '/backoffice/operator/tenants',
    '/backoffice/operator/tenants/new',
    `/backoffice/operator/tenants/${other.tenant.id}/disable`,
    '/backoffice/operator/audit',
    '/backoffice/operator/audit.csv',
  ];
  const operatorForms = () =>
    [
      ['/backoffice/operator/tenants', { alias: 'no_token', email: 'n@example.test' }],
      [`/backoffice/operator/tenants/${other.tenant.id}/disable`, {}],
      [`/backoffice/operator/tenants/${other.tenant.id}/enable`, {}],
    ] as const;
  const accountForms = [
    ['/backoffice/sign-out', {}],
    ['/backoffice/account/password', { current_password: 'x', new_password: 'y' }],
  ] as const;

  /** What a refused form must leave as it was. */
  async function snapshot() {
    const count = async (
      table: 'templates' | 'template_versions' | 'api_keys' | 'tenants' | 'tlog_audits',
    ) =>
      (
        await t.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .executeTakeFirstOrThrow()
      ).n;
    return {
      templates: await count('templates'),
      versions: await count('template_versions'),
      keys: await count('api_keys'),
      tenants: await count('tenants'),
      audits: await count('tlog_audits'),
      draft: await t.db
        .selectFrom('template_versions')
        .select(['tag', 'content_html', 'status'])
        .where('id', '=', draftId)
        .executeTakeFirstOrThrow(),
      key: await t.db
        .selectFrom('api_keys')
        .select('revoked_at')
        .where('id', '=', a.apiKey.id)
        .executeTakeFirstOrThrow(),
      someone: await t.db
        .selectFrom('subjects')
        .select(['lookup', 'wrapped_key', 'erased_at'])
        .where('tenant_id', '=', a.tenant.id)
        .execute(),
      otherTenant: await t.db
        .selectFrom('tenants')
        .select('disabled_at')
        .where('id', '=', other.tenant.id)
        .executeTakeFirstOrThrow(),
    };
  }

  it('a visitor without a session is sent to sign in from every page and every form, and nothing changes', async () => {
    const before = await snapshot();
    const visitor = new PageClient(t.app);
    for (const url of [...tenantPages(), ...operatorPages(), '/backoffice/account/password']) {
      const response = await visitor.get(url);
      expect(response.statusCode, url).toBe(303);
      expect(String(response.headers.location), url).toMatch(/^\/backoffice\/sign-in(\?|$)/);
    }
    await visitor.get('/backoffice/sign-in');
    const tenant = await signedIn(t.app, a.tenant.email);
    for (const [url, fields] of [...tenantForms(), ...operatorForms()]) {
      const response = await visitor.post(url, fields);
      expect(response.statusCode, url).toBe(303);
      expect(String(response.headers.location), url).toMatch(/^\/backoffice\/sign-in\?next=/);
      // Back after signing in to a page that exists for GET, never to the form's address.
      const next = decodeURIComponent(
        /next=([^&]*)/.exec(String(response.headers.location))?.[1] ?? '',
      );
      const after = await tenant.get(next);
      expect([200, 303, 403], `${url} -> ${next}`).toContain(after.statusCode);
    }
    expect(await snapshot()).toEqual(before);
  });

  it('every form of a signed-in user sent without its token is refused with 403, and nothing changes', async () => {
    const before = await snapshot();
    const tenant = await signedIn(t.app, a.tenant.email);
    const admin = await signedIn(t.app, operator.email, operator.password);
    const cases = [
      ...tenantForms().map(([url, fields]) => [tenant, url, fields] as const),
      ...operatorForms().map(([url, fields]) => [admin, url, fields] as const),
      ...accountForms.map(([url, fields]) => [tenant, url, fields] as const),
    ];
    for (const [client, url, fields] of cases) {
      const response = await client.post(url, { ...fields, _csrf: '' });
      expect(response.statusCode, url).toBe(403);
      expect(response.headers['content-type'], url).toBe('text/html; charset=utf-8');
      expect(textOf(response.body), url).toContain('This form has expired');
    }
    expect(await snapshot()).toEqual(before);
    // The session survived the refused sign-out.
    expect((await tenant.get('/backoffice/dashboard')).statusCode).toBe(200);
  });

  it("a tenant's user gets 403 on every operator page and form, the operator on every tenant page and form", async () => {
    const before = await snapshot();
    const tenant = await signedIn(t.app, a.tenant.email);
    const admin = await signedIn(t.app, operator.email, operator.password);
    for (const [client, pages, forms] of [
      [tenant, operatorPages(), operatorForms()],
      [admin, tenantPages(), tenantForms()],
    ] as const) {
      for (const url of pages) {
        expect((await client.get(url)).statusCode, url).toBe(403);
      }
      for (const [url, fields] of forms) {
        await client.get('/backoffice/account/password');
        expect((await client.post(url, fields)).statusCode, url).toBe(403);
      }
    }
    expect(await snapshot()).toEqual(before);
  });

  it("another tenant's user gets 404 on every page and form of this tenant's records", async () => {
    const before = await snapshot();
    const intruder = await signedIn(t.app, other.tenant.email);
    for (const url of tenantPages().filter((u) => u.includes(code) || u.includes(a.apiKey.id))) {
      expect((await intruder.get(url)).statusCode, url).toBe(404);
    }
    for (const [url, fields] of tenantForms().filter(
      ([u]) => u.includes(code) || u.includes(a.apiKey.id),
    )) {
      await intruder.get('/backoffice/templates');
      expect((await intruder.post(url, fields)).statusCode, url).toBe(404);
    }
    expect(await snapshot()).toEqual(before);
  });
});
