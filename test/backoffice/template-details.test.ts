import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../../src/accounts/users.js';
import { createProduct } from '../../src/products/service.js';
import { publishOutsideReview } from '../../src/templates/actions.js';
import { hashPassword } from '../../src/tenants/passwords.js';
import { apiOf, withinPublishBound } from '../helpers/api.js';
import { json, type TestApp } from '../helpers/app.js';
import { insertDecisionAt } from '../helpers/decisions.js';
import { publish, type SeededTenant, seedTemplate, seedTenant, unique } from '../helpers/seed.js';
import { storeAgnostic } from '../helpers/stores.js';
import { testPasswordHashCost } from '../helpers/time.js';
import {
  type PageClient,
  signedIn,
  startBackofficeApp,
  tenantPassword,
  textOf,
} from './support.js';

/**
 * A template's name, product, default locale and validity period, changed from its page
 * (templates:create).
 */
describe.each(storeAgnostic)("changing a template's details on $name", (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let admin: PageClient;
  let reviewer: PageClient;

  beforeAll(async () => {
    t = await startBackofficeApp(store);
    a = await seedTenant(t.db);
    admin = await signedIn(t.app, a.tenant.email);
    const email = `rae-${a.tenant.alias}@example.test`;
    const passwordHash = await hashPassword(tenantPassword, testPasswordHashCost);
    await t.db
      .transaction()
      .execute((trx) =>
        addUser(trx, a.tenant.id, { email, name: 'Rae', roles: ['reviewer'], passwordHash }),
      );
    reviewer = await signedIn(t.app, email);
    await t.db
      .transaction()
      .execute((trx) =>
        createProduct(trx, actor(), a.tenant.id, { code: 'savings', name: 'Savings' }),
      );
    await t.db
      .transaction()
      .execute((trx) => createProduct(trx, actor(), a.tenant.id, { code: 'loans', name: 'Loans' }));
  });
  afterAll(async () => {
    await t?.close();
  });

  const actor = () => ({
    tenantId: a.tenant.id,
    actorKind: 'tenant' as const,
    actor: 'setup',
    ip: '127.0.0.1',
    userAgent: null,
  });

  const row = (code: string) =>
    t.db
      .selectFrom('templates as t')
      .leftJoin('products as p', 'p.id', 't.product_id')
      .select(['t.name', 't.default_locale', 'p.code as product'])
      .where('t.tenant_id', '=', a.tenant.id)
      .where('t.code', '=', code)
      .executeTakeFirstOrThrow();

  it('the name, product and default locale are changed, and the audit log says from what to what', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    await t.db
      .transaction()
      .execute((trx) =>
        publishOutsideReview(
          trx,
          actor(),
          a.tenant.id,
          code,
          { tag: '1.0', content_html: '<p>English</p>' },
          { variants: [{ locale: 'th', content_html: '<p>ไทย</p>' }] },
        ),
      );
    const page = await admin.get(`/backoffice/templates/${code}`);
    expect(page.body).toContain(`action="/backoffice/templates/${code}/details"`);
    const changed = await admin.post(`/backoffice/templates/${code}/details`, {
      name: 'Savings fees',
      product: 'loans',
      default_locale: 'TH',
    });
    expect(changed.statusCode).toBe(303);
    expect(await row(code)).toEqual({
      name: 'Savings fees',
      default_locale: 'th',
      product: 'loans',
    });
    const entry = await t.db
      .selectFrom('audit_log')
      .select(['action', 'actor', 'details'])
      .where('tenant_id', '=', a.tenant.id)
      .where('action', '=', 'template.changed')
      .where('target', '=', code)
      .executeTakeFirstOrThrow();
    expect(entry.actor).toBe(a.tenant.email);
    expect(JSON.parse(String(entry.details))).toMatchObject({
      name: { to: 'Savings fees' },
      product: { from: 'savings', to: 'loans' },
      default_locale: { from: 'en', to: 'th' },
    });
  });

  it('a default locale the template has no text in is refused, and the template stays as it was', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    await publish(t.db, a.tenant.id, code, { tag: '1.0', content_html: '<p>English</p>' });
    const before = await row(code);
    await admin.get(`/backoffice/templates/${code}`);
    const refused = await admin.post(`/backoffice/templates/${code}/details`, {
      name: 'Renamed',
      product: 'savings',
      default_locale: 'de',
    });
    expect(refused.statusCode).toBe(400);
    expect(textOf(refused.body)).toContain(
      'The default locale must be one the template has a text in: en.',
    );
    expect(await row(code)).toEqual(before);
  });

  const validity = (code: string) =>
    t.db
      .selectFrom('templates')
      .select('validity_months')
      .where('tenant_id', '=', a.tenant.id)
      .where('code', '=', code)
      .executeTakeFirstOrThrow();
  const validityChanges = (code: string) =>
    t.db
      .selectFrom('audit_log')
      .select('details')
      .where('tenant_id', '=', a.tenant.id)
      .where('action', '=', 'template.changed')
      .where('target', '=', code)
      .orderBy('created_at')
      .execute();
  const details = (validity_months: string) => ({
    name: 'Savings terms',
    product: 'savings',
    default_locale: 'en',
    validity_months,
  });

  it('the validity period is set in months and cleared again, each change audited from what to what, and pending applies it', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const v = await publish(t.db, a.tenant.id, code, { tag: '1.0', content_html: '<p>Terms</p>' });
    // A given of long ago: twelve months lapsed it.
    const customer = unique('c');
    await insertDecisionAt(
      t,
      { tenantId: a.tenant.id, apiKeyId: a.apiKey.id },
      customer,
      v.consent_version_id,
      'given',
      '2024-03-01T00:00:00.000Z',
    );
    const api = apiOf(t.app, a.headers);
    expect(json(await api.pending(customer, code)).data.accepted).toBe(true);

    const page = await admin.get(`/backoffice/templates/${code}`);
    expect(page.body).toContain('name="validity_months"');
    expect(textOf(page.body)).toContain('no limit');
    const set = await admin.post(`/backoffice/templates/${code}/details`, details(' 12 '));
    expect(set.statusCode).toBe(303);
    expect(await validity(code)).toEqual({ validity_months: 12 });
    expect(textOf((await admin.get(`/backoffice/templates/${code}`)).body)).toContain(
      '12 months after it is given',
    );
    // Seen by pending within the bound a publish has.
    const lapsed = await withinPublishBound(
      () => api.pending(customer, code),
      (r) => json(r).data.accepted === false,
    );
    expect(json(lapsed).data).toMatchObject({
      accepted: false,
      decision: 'given',
      expired: true,
      expires_at: '2025-03-01T00:00:00.000Z',
    });
    // The customer's look-up says it too.
    const lookUp = await admin.get(`/backoffice/customers?customer_id=${customer}`);
    expect(textOf(lookUp.body)).toContain('lapsed given, lapsed 2025-03-01');

    const cleared = await admin.post(`/backoffice/templates/${code}/details`, details(''));
    expect(cleared.statusCode).toBe(303);
    expect(await validity(code)).toEqual({ validity_months: null });
    const entries = (await validityChanges(code)).map((e) => JSON.parse(String(e.details)));
    expect(entries.map((e) => e.validity_months)).toEqual([
      { from: null, to: 12 },
      { from: 12, to: null },
    ]);
    const answered = await withinPublishBound(
      () => api.pending(customer, code),
      (r) => json(r).data.accepted === true,
    );
    expect(Object.keys(json(answered).data)).toEqual([
      'accepted',
      'consent_version',
      'decision',
      'decided_at',
    ]);
  });

  it.each([['0'], ['121'], ['1.5'], ['-1'], ['twelve'], ['12 months']])(
    'a validity period of %j is refused with 400 and a message saying what is allowed, and nothing changes',
    async (value) => {
      const code = await seedTemplate(t.db, a.tenant.id);
      await admin.get(`/backoffice/templates/${code}`);
      const refused = await admin.post(`/backoffice/templates/${code}/details`, {
        ...details(value),
        name: 'Renamed',
      });
      expect(refused.statusCode).toBe(400);
      expect(textOf(refused.body)).toContain(
        'The validity period must be a whole number of months from 1 to 120, or empty for none.',
      );
      expect(await validity(code)).toEqual({ validity_months: null });
      expect((await row(code)).name).not.toBe('Renamed');
      expect(await validityChanges(code)).toEqual([]);
    },
  );

  it('needs the permission to create templates: a reviewer gets 403 and sees no form', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const page = await reviewer.get(`/backoffice/templates/${code}`);
    expect(page.body).not.toContain('/details"');
    const refused = await reviewer.post(`/backoffice/templates/${code}/details`, {
      name: 'Mine',
      product: 'savings',
      default_locale: 'en',
    });
    expect(refused.statusCode).toBe(403);
  });

  const categories = async (code: string) =>
    (
      await t.db
        .selectFrom('templates')
        .select('data_categories')
        .where('tenant_id', '=', a.tenant.id)
        .where('code', '=', code)
        .executeTakeFirstOrThrow()
    ).data_categories;

  it('the sensitive data it covers is ticked on its page, shown on it, and the list shows it apart', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const plain = await seedTemplate(t.db, a.tenant.id);
    const page = await admin.get(`/backoffice/templates/${code}`);
    expect(page.body).toContain(`action="/backoffice/templates/${code}/sensitive-data"`);
    const changed = await admin.post(`/backoffice/templates/${code}/sensitive-data`, {
      data_categories: 'health',
    });
    expect(changed.statusCode).toBe(303);
    expect(await categories(code)).toBe('["health"]');
    const shown = textOf((await admin.get(`/backoffice/templates/${code}`)).body);
    expect(shown).toContain(
      'Sensitive data health: a given needs explicit consent (PDPA section 26)',
    );

    // The list: the sensitive template in its own table, naming the data, the other apart.
    const list = (await admin.get('/backoffice/templates')).body;
    const section = list.slice(
      list.indexOf('id="sensitive-templates"'),
      list.indexOf('<h2>Other templates</h2>'),
    );
    expect(section).toContain(`>${code}</a>`);
    expect(section).not.toContain(`>${plain}</a>`);
    expect(textOf(section)).toContain('health');
    expect(list.slice(list.indexOf('<h2>Other templates</h2>'))).toContain(`>${plain}</a>`);

    // None ticked clears it; an unknown category is refused and changes nothing.
    await admin.get(`/backoffice/templates/${code}`);
    const refused = await admin.post(`/backoffice/templates/${code}/sensitive-data`, {
      data_categories: 'shoe-size',
    });
    expect(refused.statusCode).toBe(400);
    expect(textOf(refused.body)).toContain('Tick only the categories listed.');
    expect(await categories(code)).toBe('["health"]');
    await admin.get(`/backoffice/templates/${code}`);
    expect((await admin.post(`/backoffice/templates/${code}/sensitive-data`, {})).statusCode).toBe(
      303,
    );
    expect(await categories(code)).toBeNull();
    const refusedReviewer = await reviewer.post(`/backoffice/templates/${code}/sensitive-data`, {
      data_categories: 'health',
    });
    expect(refusedReviewer.statusCode).toBe(403);
  });

  it("who may decide: set on the template's page as a select per basis, shown in words, audited; a value not in the list is refused", async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const stored = async () =>
      (
        await t.db
          .selectFrom('templates')
          .select('representation')
          .where('tenant_id', '=', a.tenant.id)
          .where('code', '=', code)
          .executeTakeFirstOrThrow()
      ).representation;
    const page = await admin.get(`/backoffice/templates/${code}`);
    expect(page.body).toContain(`action="/backoffice/templates/${code}/representation"`);
    expect(textOf(page.body)).toContain(
      'Who may decide no rule: whoever the client system says acted (PDPA section 20)',
    );
    const form = {
      'under-10': 'representative',
      '10-19': 'subject-with-representative',
      adult: '',
      'court-order': '',
    };
    const changed = await admin.post(`/backoffice/templates/${code}/representation`, form);
    expect(changed.statusCode).toBe(303);
    expect(JSON.parse((await stored()) ?? 'null')).toEqual({
      'under-10': 'representative',
      '10-19': 'subject-with-representative',
    });
    expect(textOf((await admin.get(`/backoffice/templates/${code}`)).body)).toContain(
      "Who may decide Under 10: a representative; 10 to 19: the subject with a representative's co-consent",
    );
    const refused = await admin.post(`/backoffice/templates/${code}/representation`, {
      ...form,
      adult: 'uncle',
    });
    expect(refused.statusCode).toBe(400);
    expect(textOf(refused.body)).toContain('Choose who decides from the list.');
    expect(JSON.parse((await stored()) ?? 'null')).toHaveProperty('10-19');
    await admin.get(`/backoffice/templates/${code}`);
    const cleared = await admin.post(`/backoffice/templates/${code}/representation`, {
      'under-10': '',
      '10-19': '',
      adult: '',
      'court-order': '',
    });
    expect(cleared.statusCode).toBe(303);
    expect(await stored()).toBeNull();
    const audited = await t.db
      .selectFrom('audit_log')
      .select('details')
      .where('tenant_id', '=', a.tenant.id)
      .where('action', '=', 'template.changed')
      .where('target', '=', code)
      .execute();
    expect(audited.map((row) => JSON.parse(row.details ?? '{}').representation)).toEqual([
      { from: 'none', to: 'under-10=representative,10-19=subject-with-representative' },
      { from: 'under-10=representative,10-19=subject-with-representative', to: 'none' },
    ]);
    expect(
      (await reviewer.post(`/backoffice/templates/${code}/representation`, form)).statusCode,
    ).toBe(403);
  });
});
