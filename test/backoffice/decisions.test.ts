import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../../src/accounts/users.js';
import { createApiKey } from '../../src/api-keys/service.js';
import { createProduct } from '../../src/products/service.js';
import { createTemplate } from '../../src/templates/service.js';
import { hashPassword } from '../../src/tenants/passwords.js';
import { apiOf } from '../helpers/api.js';
import { subjectIdOf, type TestApp } from '../helpers/app.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { testPasswordHashCost } from '../helpers/time.js';
import {
  type PageClient,
  signedIn,
  startBackofficeApp,
  tenantPassword,
  textOf,
} from './support.js';

const actor = { actorKind: 'operator', actor: 'test', ip: 'local', userAgent: null } as const;

/**
 * The Decisions list across customers. Tenant A has two products: "general" (template `terms`,
 * versions 1 and 2) and "cards" (template `cards`); decisions come through the API with two keys.
 */
describe.each(stores)('the Decisions list on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let b: SeededTenant;
  let admin: PageClient;
  let service: PageClient;
  const ids = new Map<string, string>();
  let shopKey: { id: string; headers: Record<string, string> };

  /** Customers on the page, in its order. */
  const customersOn = (body: string) =>
    [...body.matchAll(/<td class="mono">([^<]+)<\/td>\n<td class="mono">/g)].map((m) => m[1]);

  beforeAll(async () => {
    t = await startBackofficeApp(store);
    a = await seedTenant(t.db);
    b = await seedTenant(t.db);
    admin = await signedIn(t.app, a.tenant.email);
    const hash = await hashPassword(tenantPassword, testPasswordHashCost);
    const email = `service-${a.tenant.alias}@example.test`;
    await t.db.transaction().execute((trx) =>
      addUser(trx, a.tenant.id, {
        email,
        name: 'Cas',
        roles: ['customer_service'],
        passwordHash: hash,
      }),
    );
    service = await signedIn(t.app, email);

    await t.db
      .transaction()
      .execute((trx) => createTemplate(trx, a.tenant.id, { code: 'terms', name: 'Terms' }));
    await t.db.transaction().execute((trx) =>
      createProduct(trx, { ...actor, tenantId: a.tenant.id }, a.tenant.id, {
        code: 'cards',
        name: 'Cards',
      }),
    );
    await t.db.transaction().execute((trx) =>
      createTemplate(trx, a.tenant.id, {
        code: 'cards',
        name: 'Card terms',
        product: 'cards',
      }),
    );
    const terms1 = await publish(t.db, a.tenant.id, 'terms', {
      tag: '1.0',
      content_html: '<p>Terms one</p>',
    });
    const api = apiOf(t.app, a.headers);
    const created = await createApiKey(t.db, a.tenant.id, { name: 'shop' });
    shopKey = { id: created.id, headers: { 'x-system-api-key': created.key } };
    const shop = apiOf(t.app, shopKey.headers);
    const decide = async (via: typeof api, customer: string, version: string, decision: string) => {
      const answer = await via.decide(customer, version, decision, { 'user-agent': 'Shop/2' });
      expect(answer.statusCode, answer.body).toBe(201);
      ids.set(`${customer}:${decision}`, JSON.parse(answer.body).data.decision_id ?? '');
    };
    await decide(api, 'ann', terms1.consent_version_id, 'given');
    await decide(api, 'bob', terms1.consent_version_id, 'reject');
    const terms2 = await publish(t.db, a.tenant.id, 'terms', { tag: '2.0' });
    await decide(shop, 'cyd', terms2.consent_version_id, 'given');
    const cards = await publish(t.db, a.tenant.id, 'cards', { tag: '1.0' });
    await decide(shop, 'dee', cards.consent_version_id, 'given');
    await decide(shop, 'dee', cards.consent_version_id, 'withdraw');
    // Another tenant's decision, which A never sees.
    const other = await seedTemplate(t.db, b.tenant.id);
    const bv = await publish(t.db, b.tenant.id, other);
    expect(
      (await apiOf(t.app, b.headers).decide('zed', bv.consent_version_id, 'given')).statusCode,
    ).toBe(201);
  });
  afterAll(() => t?.close());

  it('lists every decision of the tenant, newest first, and none of another tenant', async () => {
    const page = await admin.get('/backoffice/decisions');
    expect(page.statusCode).toBe(200);
    expect(customersOn(page.body)).toEqual(['dee', 'dee', 'cyd', 'bob', 'ann']);
    expect(page.body).not.toContain('zed');
  });

  it('filters by product, template, version, decision and API key, alone and together', async () => {
    const on = async (query: string) =>
      customersOn((await admin.get(`/backoffice/decisions?${query}`)).body);
    expect(await on('product=cards')).toEqual(['dee', 'dee']);
    expect(await on('product=general')).toEqual(['cyd', 'bob', 'ann']);
    expect(await on('template=terms&version=1')).toEqual(['bob', 'ann']);
    expect(await on('template=terms&version=2')).toEqual(['cyd']);
    expect(await on('decision=given')).toEqual(['dee', 'cyd', 'ann']);
    expect(await on(`key=${shopKey.id}`)).toEqual(['dee', 'dee', 'cyd']);
    expect(await on(`key=${a.apiKey.id}&decision=reject`)).toEqual(['bob']);
    expect(await on('product=cards&decision=withdraw')).toEqual(['dee']);
  });

  it("filters by customer id, exactly; an id never seen matches nothing; the audit entries name the customer's random id, never the customer id", async () => {
    const on = async (query: string) => {
      const page = await admin.get(`/backoffice/decisions?${query}`);
      expect(page.statusCode).toBe(200);
      return customersOn(page.body);
    };
    expect(await on('customer=dee')).toEqual(['dee', 'dee']);
    expect(await on('customer=dee&decision=withdraw')).toEqual(['dee']);
    expect(await on('customer=%20ann%20')).toEqual(['ann']);
    expect(await on('customer=de')).toEqual([]);
    expect(await on('customer=zed')).toEqual([]);
    const refused = await admin.get('/backoffice/decisions?customer=a%20b');
    expect(refused.statusCode).toBe(400);
    expect(textOf(refused.body)).toContain('A customer id is 1 to 128 of');
    const csv = await admin.get('/backoffice/decisions.csv?customer=bob');
    expect(
      (parse(csv.body, { columns: true }) as Array<Record<string, string>>).map(
        (r) => r.customer_id,
      ),
    ).toEqual(['bob']);
    const subject = await subjectIdOf(t, a.tenant.id, 'bob');
    const entries = await t.db
      .selectFrom('audit_log')
      .select(['action', 'details'])
      .where('tenant_id', '=', a.tenant.id)
      .where('action', 'in', ['decisions.browsed', 'export.decisions'])
      .execute();
    const details = entries.map((e) => e.details ?? '');
    expect(details.some((d) => d.includes('"dee"') || d.includes('"bob"'))).toBe(false);
    expect(
      entries
        .filter((e) => e.action === 'export.decisions')
        .map((e) => JSON.parse(e.details ?? '{}').customer),
    ).toContain(subject);
  });

  it('filters by days in the tenant time zone, the last day included', async () => {
    const { decided_at } = await t.db
      .selectFrom('decisions')
      .select('decided_at')
      .where('tenant_id', '=', a.tenant.id)
      .orderBy('decided_at')
      .executeTakeFirstOrThrow();
    const day = decided_at.slice(0, 10);
    const shift = (days: number) =>
      new Date(Date.parse(`${day}T00:00:00.000Z`) + days * 86_400_000).toISOString().slice(0, 10);
    const on = async (query: string) =>
      customersOn((await admin.get(`/backoffice/decisions?${query}`)).body);
    expect(await on(`from=${day}&to=${shift(1)}`)).toHaveLength(5);
    expect(await on(`to=${shift(-1)}`)).toEqual([]);
    expect(await on(`from=${shift(2)}`)).toEqual([]);
  });

  it('pages of 50 by keyset: Older leads to the rest, each decision once', async () => {
    const more = await publish(t.db, a.tenant.id, 'terms', { tag: '3.0' });
    const api = apiOf(t.app, a.headers);
    for (let i = 0; i < 52; i += 1) {
      const answer = await api.decide(
        `many-${String(i).padStart(2, '0')}`,
        more.consent_version_id,
        'given',
      );
      expect(answer.statusCode).toBe(201);
    }
    const first = await admin.get('/backoffice/decisions?template=terms&version=3');
    const firstPage = customersOn(first.body);
    expect(firstPage).toHaveLength(50);
    expect(firstPage[0]).toBe('many-51');
    const older = /href="(\/backoffice\/decisions\?[^"]*before=[^"]+)">Older/.exec(first.body)?.[1];
    expect(older).toBeDefined();
    const second = await admin.get((older ?? '').replaceAll('&amp;', '&'));
    expect(customersOn(second.body)).toEqual(['many-01', 'many-00']);
    expect(second.body).not.toContain('>Older<');
  });

  it("a decision's page shows its evidence and the text shown; it is audited; another tenant's is not found", async () => {
    const id = ids.get('bob:reject') ?? '';
    const page = await service.get(`/backoffice/decisions/${id}`);
    expect(page.statusCode).toBe(200);
    const text = textOf(page.body);
    expect(text).toContain('Decision: reject');
    expect(text).toContain('Customer bob');
    expect(text).toContain('User agent Shop/2');
    expect(text).toContain('Terms (terms)');
    expect(page.body).toContain('aria-label="The text shown"><p>Terms one</p></div>');
    // SHA-256 (hex) of '<p>Terms one</p>'.
    expect(text).toContain(
      'SHA-256 of the text shown 51ab3d6b733c17ecba47ee015aae6beb3526a8fcedddb2873d8077e3c7bdd029',
    );
    const viewed = await t.db
      .selectFrom('audit_log')
      .select(['action', 'target'])
      .where('tenant_id', '=', a.tenant.id)
      .where('action', '=', 'decision.viewed')
      .execute();
    expect(viewed).toEqual([{ action: 'decision.viewed', target: id }]);
    const bDecision = await t.db
      .selectFrom('decisions')
      .select('id')
      .where('tenant_id', '=', b.tenant.id)
      .executeTakeFirstOrThrow();
    expect((await admin.get(`/backoffice/decisions/${bDecision.id}`)).statusCode).toBe(404);
  });

  it('the filtered list downloads as CSV, oldest first, for those who may export; customer service may browse but not download', async () => {
    const csv = await admin.get('/backoffice/decisions.csv?product=cards');
    expect(csv.statusCode).toBe(200);
    const rows = parse(csv.body, { columns: true }) as Array<Record<string, string>>;
    expect(rows.map((r) => [r.customer_id, r.decision])).toEqual([
      ['dee', 'given'],
      ['dee', 'withdraw'],
    ]);
    expect((await service.get('/backoffice/decisions?product=cards')).statusCode).toBe(200);
    expect((await service.get('/backoffice/decisions.csv?product=cards')).statusCode).toBe(403);
  });

  it('a filter that is none answers 400 with the reason; browsing is audited with its filter', async () => {
    const bad = await admin.get('/backoffice/decisions?version=2&decision=maybe&from=2026-02-30');
    expect(bad.statusCode).toBe(400);
    const text = textOf(bad.body);
    expect(text).toContain('Choose a template too.');
    expect(text).toContain('given, reject or withdraw, or nothing.');
    expect(text).toContain('A day of the calendar.');
    const unknown = await admin.get('/backoffice/decisions?template=nope');
    expect(unknown.statusCode).toBe(400);
    expect(textOf(unknown.body)).toContain('There is no such template.');
    expect(
      (await admin.get('/backoffice/decisions?product=cards&decision=withdraw')).statusCode,
    ).toBe(200);
    const browsed = await t.db
      .selectFrom('audit_log')
      .select('details')
      .where('tenant_id', '=', a.tenant.id)
      .where('action', '=', 'decisions.browsed')
      .execute();
    expect(browsed.map((e) => JSON.parse(e.details ?? '{}'))).toContainEqual({
      product: 'cards',
      decision: 'withdraw',
    });
  });
});
