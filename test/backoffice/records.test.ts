import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiOf, withinPublishBound } from '../helpers/api.js';
import { json, subjectIdOf, type TestApp } from '../helpers/app.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { type PageClient, signedIn, startBackofficeApp, textOf } from './support.js';

describe.each(stores)(
  'API keys, customers and tenant isolation in the back-office on $name',
  (store) => {
    let t: TestApp;
    let a: SeededTenant;
    let b: SeededTenant;
    let pageA: PageClient;
    let pageB: PageClient;
    let code: string;
    let versionId: string;

    beforeAll(async () => {
      t = await startBackofficeApp(store);
      a = await seedTenant(t.db);
      b = await seedTenant(t.db);
      pageA = await signedIn(t.app, a.tenant.email);
      pageB = await signedIn(t.app, b.tenant.email);
      code = await seedTemplate(t.db, a.tenant.id);
      versionId = (await publish(t.db, a.tenant.id, code, { tag: '1.0' })).consent_version_id;
    });
    afterAll(async () => {
      await t.close();
    });

    it('a key made in API Key Management is shown once, works on the API, and the list shows only its prefix', async () => {
      const made = await pageA.submit('/backoffice/api-keys', '/backoffice/api-keys', {
        name: 'web shop',
      });
      expect(made.statusCode).toBe(303);
      const shown = await pageA.get(String(made.headers.location));
      const key = /csk_[0-9a-f]{12}_[A-Za-z0-9_-]{43}/.exec(shown.body)?.[0] ?? '';
      expect(key).not.toBe('');
      expect(textOf(shown.body)).toContain('it is shown only this once');
      expect(shown.headers['cache-control']).toBe('no-store');

      const latest = await apiOf(t.app, { 'x-system-api-key': key }).latest(code);
      expect(latest.statusCode).toBe(200);

      const list = await pageA.get('/backoffice/api-keys');
      expect(list.body).not.toContain(key);
      expect(list.body).toContain(key.slice(0, 16));
      expect(textOf(list.body)).toContain('web shop');
    });

    it('revoking a key asks first, then the API refuses it (401) within a second', async () => {
      const made = await pageA.submit('/backoffice/api-keys', '/backoffice/api-keys', {
        name: 'to revoke',
      });
      const shown = await pageA.get(String(made.headers.location));
      const key = /csk_[0-9a-f]{12}_[A-Za-z0-9_-]{43}/.exec(shown.body)?.[0] ?? '';
      const id = (
        await t.db
          .selectFrom('api_keys')
          .select('id')
          .where('prefix', '=', key.slice(0, 16))
          .executeTakeFirstOrThrow()
      ).id;
      const api = apiOf(t.app, { 'x-system-api-key': key });
      expect((await api.latest(code)).statusCode).toBe(200);
      const confirm = await pageA.get(`/backoffice/api-keys/${id}/revoke`);
      expect(textOf(confirm.body)).toContain('Revoke key "to revoke"?');
      const revoked = await pageA.post(`/backoffice/api-keys/${id}/revoke`, {});
      expect(revoked.statusCode).toBe(303);
      // Keys are checked through a cache trusted for under a second.
      const refused = await withinPublishBound(
        () => api.latest(code),
        (response) => response.statusCode === 401,
      );
      expect(refused.statusCode).toBe(401);
      const list = await pageA.get('/backoffice/api-keys?notice=revoked');
      expect(textOf(list.body)).toContain('Key revoked.');
      const audit = await t.db
        .selectFrom('audit_log')
        .select(['action', 'target'])
        .where('tenant_id', '=', a.tenant.id)
        .where('action', 'like', 'api_key.%')
        .orderBy('created_at')
        .execute();
      expect(audit).toEqual(
        expect.arrayContaining([
          { action: 'api_key.created', target: 'to revoke' },
          { action: 'api_key.revoked', target: 'to revoke' },
        ]),
      );
    });

    it('a customer look-up shows where the customer stands and every decision with version, tag, key name, IP and user agent', async () => {
      const customer = 'cust+look@example.test';
      const api = apiOf(t.app, { ...a.headers, 'user-agent': 'ShopApp/2.3 (iPhone)' });
      expect((await api.decide(customer, versionId, 'given')).statusCode).toBe(201);
      expect((await api.decide(customer, versionId, 'withdraw')).statusCode).toBe(201);
      const page = await pageA.get(
        `/backoffice/customers?customer_id=${encodeURIComponent(customer)}`,
      );
      expect(page.statusCode).toBe(200);
      const text = textOf(page.body);
      expect(text).toContain(code);
      expect(text).toContain('ShopApp/2.3 (iPhone)');
      expect(text).toContain('test key');
      expect(text).toContain('127.0.0.1');
      const rows = page.body.split('<table class="history">')[1]?.split('<tr>').slice(2) ?? [];
      expect(rows).toHaveLength(2);
      expect(rows[0]).toContain('withdraw');
      expect(rows[0]).toContain('>1.0 (en)<');
      expect(rows[1]).toContain('given');
      // The look-up is recorded under the customer's random id: the audit log keeps no customer id.
      const subjectId = await subjectIdOf(t, a.tenant.id, customer);
      expect(subjectId).toBeDefined();
      const audit = await t.db
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'customer.looked_up')
        .where('target', '=', subjectId ?? '')
        .execute();
      expect(audit).toHaveLength(1);
      expect(audit[0]?.tenant_id).toBe(a.tenant.id);
      expect(
        JSON.stringify(await t.db.selectFrom('audit_log').selectAll().execute()),
      ).not.toContain(customer);
    });

    it('after a new version, the look-up shows the customer as pending on the template', async () => {
      const tpl = await seedTemplate(t.db, a.tenant.id);
      const v1 = await publish(t.db, a.tenant.id, tpl);
      await apiOf(t.app, a.headers).decide('pending-one', v1.consent_version_id, 'given');
      let page = await pageA.get('/backoffice/customers?customer_id=pending-one');
      expect(page.body).toContain(
        '<span class="badge given">given</span></td>\n<td><span class="badge given">',
      );
      await publish(t.db, a.tenant.id, tpl);
      page = await pageA.get('/backoffice/customers?customer_id=pending-one');
      expect(page.body).toContain('badge pending');
    });

    it('a malformed customer id answers 400 with the form, and an unknown one says there is nothing', async () => {
      const bad = await pageA.get('/backoffice/customers?customer_id=has%20space');
      expect(bad.statusCode).toBe(400);
      expect(bad.body).toMatch(/id="customer_id"[^>]*aria-invalid="true"/);
      const none = await pageA.get('/backoffice/customers?customer_id=never-seen');
      expect(textOf(none.body)).toContain('No decision recorded for never-seen.');
    });

    it("another tenant's user gets 404 for the template, its versions and the keys, and sees none of its customers", async () => {
      for (const url of [
        `/backoffice/templates/${code}`,
        `/backoffice/templates/${code}/versions/${versionId}`,
        `/backoffice/templates/${code}/versions/new`,
        `/backoffice/templates/${code}/versions/${versionId}/review`,
        `/backoffice/api-keys/${a.apiKey.id}/revoke`,
      ]) {
        const response = await pageB.get(url);
        expect(response.statusCode, url).toBe(404);
        expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(response.body).not.toContain(code);
      }
      await pageB.get('/backoffice/api-keys');
      const revoke = await pageB.post(`/backoffice/api-keys/${a.apiKey.id}/revoke`, {});
      expect(revoke.statusCode).toBe(404);
      expect((await apiOf(t.app, a.headers).latest(code)).statusCode).toBe(200);

      await apiOf(t.app, a.headers).decide('shared-customer', versionId, 'given');
      const lookUp = await pageB.get('/backoffice/customers?customer_id=shared-customer');
      expect(textOf(lookUp.body)).toContain('No decision recorded for shared-customer.');

      const lists = await Promise.all(
        [
          '/backoffice/templates',
          '/backoffice/api-keys',
          '/backoffice/dashboard',
          '/backoffice/audit',
        ].map((url) => pageB.get(url)),
      );
      for (const list of lists) {
        expect(list.statusCode).toBe(200);
        expect(list.body).not.toContain(code);
        expect(list.body).not.toContain(a.tenant.email);
        expect(list.body).not.toContain(a.apiKey.prefix);
      }
    });

    it("a draft of another tenant's template cannot be made, edited, submitted, reviewed or approved", async () => {
      const draft = await pageA.submit(
        `/backoffice/templates/${code}/versions/new`,
        `/backoffice/templates/${code}/versions`,
        { tag: '9.0', content_html: '<p>A draft of A</p>' },
      );
      const id = /\/versions\/([0-9a-f-]{36})/.exec(String(draft.headers.location))?.[1] ?? '';
      for (const [url, fields] of [
        [`/backoffice/templates/${code}/versions`, { tag: '9.1', content_html: '<p>B</p>' }],
        [`/backoffice/templates/${code}/versions/${id}`, { tag: '9.0', content_html: '<p>B</p>' }],
        [`/backoffice/templates/${code}/versions/${id}/submit`, {}],
        [`/backoffice/templates/${code}/versions/${id}/pass`, {}],
        [`/backoffice/templates/${code}/versions/${id}/approve`, {}],
        [`/backoffice/templates/${code}/versions/${id}/send-back`, { comment: 'B' }],
        [`/backoffice/templates/${code}/versions/${id}/reject`, { comment: 'B' }],
      ] as const) {
        await pageB.get('/backoffice/templates');
        expect((await pageB.post(url, fields)).statusCode, url).toBe(404);
      }
      const row = await t.db
        .selectFrom('template_versions')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(row).toMatchObject({ status: 'draft', content_html: '<p>A draft of A</p>' });
      expect(json(await apiOf(t.app, a.headers).latest(code)).data.tag).toBe('1.0');
    });

    it('text from the store is escaped on every page (a template name with markup)', async () => {
      const evil = '<img src=x onerror=alert(1)>"\'';
      await pageA.submit('/backoffice/templates/new', '/backoffice/templates', {
        code: 'xss_name',
        name: evil,
      });
      for (const url of [
        '/backoffice/templates',
        '/backoffice/templates/xss_name',
        '/backoffice/dashboard',
      ]) {
        const page = await pageA.get(url);
        expect(page.body, url).not.toContain('<img src=x');
        expect(page.body, url).toContain('&lt;img src=x onerror=alert(1)&gt;&quot;&#39;');
      }
    });
  },
);
