import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../../src/accounts/users.js';
import { migrateToLatest } from '../../src/platform/migrate.js';
import { createTemplate } from '../../src/templates/service.js';
import { hashPassword } from '../../src/tenants/passwords.js';
import { apiOf } from '../helpers/api.js';
import { type TestApp, testDataKey } from '../helpers/app.js';
import { migrateBefore } from '../helpers/schema-history.js';
import {
  publish,
  type SeededTenant,
  seedTemplateRow,
  seedTenant,
  seedTenantRow,
} from '../helpers/seed.js';
import { storeAgnostic, stores, useBareStore } from '../helpers/stores.js';
import { testPasswordHashCost } from '../helpers/time.js';
import {
  type PageClient,
  signedIn,
  startBackofficeApp,
  tenantPassword,
  textOf,
} from './support.js';

describe.each(stores)('upgrading a store to products on $name', (store) => {
  const bare = useBareStore(store);

  it('every existing template moves to a product "general" of its tenant; a tenant without templates gets none', async () => {
    const { db } = bare;
    await migrateBefore(db, '0011');
    const withTemplates = await seedTenantRow(db);
    const without = await seedTenantRow(db);
    const codes = [
      await seedTemplateRow(db, withTemplates.tenant.id),
      await seedTemplateRow(db, withTemplates.tenant.id),
    ];

    expect(await migrateToLatest(db, testDataKey)).toEqual([
      '0011-products',
      '0012-api-key-last-four',
      '0013-template-archive',
      '0014-content-files',
      '0015-locales',
      '0016-webhooks',
      '0017-webhook-secret-overlap',
      '0018-draft-authorship',
      '0019-cookies',
      '0020-cookie-decisions-by-system',
      '0021-partners',
      '0022-channel-blocks',
      '0023-template-validity',
      '0024-controls',
      '0025-preference-centre',
      '0026-preference-codes',
      '0027-cookie-refused-origins',
      '0028-store-settings',
      '0029-lapse-progress',
      '0030-log-epochs',
      '0031-log-witnesses',
      '0032-publications',
      '0033-sensitive-templates',
      '0034-representation-rules',
      '0035-held-consent-acts',
      '0036-subject-requests',
      '0037-request-deliveries',
      '0038-processing-record',
      '0039-request-reminders',
      '0040-cookie-scans',
      '0041-choice-region',
      '0042-choice-variant',
      '0043-cookie-overrides',
      '0044-choice-customer',
      '0045-single-sign-on',
      '0046-scim',
      '0047-passkeys',
      '0048-log-nodes-from-level-4',
      '0049-pending-from-indexes',
      '0050-sqlite-states-by-key',
      '0051-erased-evidence',
      '0052-log-leaf-hashes',
      '0053-queued-leaf-hashes',
      '0054-decision-keys-without-tenant',
      '0055-choice-and-subject-keys-without-tenant',
      '0056-control-change-keys-without-tenant',
      '0057-log-record-key-without-log',
      '0058-uuid-ids',
      '0059-decision-content-hash-optional',
      '0060-cookie-choice-content-hash-optional',
      '0061-decision-times-timestamptz',
      '0062-log-entries-binary',
      '0063-subject-lookups-binary',
      '0064-state-keys-without-tenant',
      '0065-control-state-keys-without-tenant',
      '0066-sealed-columns-binary',
      '0067-customer-time-key-without-id',
      '0068-log-nodes-from-level-6',
      '0069-log-entries-by-number',
      '0070-subject-times-timestamptz',
      '0071-states-without-tenant',
      '0072-sqlite-keys-without-tenant',
      '0073-sqlite-states-without-tenant',
      '0074-sqlite-binary-ids',
    ]);
    const products = await db.selectFrom('products').selectAll().execute();
    expect(products.map((p) => [p.tenant_id, p.code, p.name, p.archived_at])).toEqual([
      [withTemplates.tenant.id, 'general', 'General', null],
    ]);
    const templates = await db
      .selectFrom('templates')
      .select(['code', 'product_id'])
      .where('tenant_id', '=', withTemplates.tenant.id)
      .orderBy('code')
      .execute();
    expect(templates).toEqual(codes.sort().map((code) => ({ code, product_id: products[0]?.id })));
    expect(
      await db
        .selectFrom('products')
        .select('id')
        .where('tenant_id', '=', without.tenant.id)
        .execute(),
    ).toEqual([]);
  });
});

describe.each(storeAgnostic)('products in the back-office on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let admin: PageClient;
  let reviewer: PageClient;

  beforeAll(async () => {
    t = await startBackofficeApp(store);
    a = await seedTenant(t.db);
    admin = await signedIn(t.app, a.tenant.email);
    const hash = await hashPassword(tenantPassword, testPasswordHashCost);
    const email = `reviewer-${a.tenant.alias}@example.test`;
    await t.db
      .transaction()
      .execute((trx) =>
        addUser(trx, a.tenant.id, { email, name: 'Rae', roles: ['reviewer'], passwordHash: hash }),
      );
    reviewer = await signedIn(t.app, email);
  });
  afterAll(() => t?.close());

  const newProduct = (fields: Record<string, string>) =>
    admin.submit('/backoffice/products/new', '/backoffice/products', fields);
  const newTemplate = (code: string, product?: string) =>
    admin.submit('/backoffice/templates/new', '/backoffice/templates', {
      code,
      name: `Template ${code}`,
      ...(product === undefined ? {} : { product }),
    });
  const auditActions = async () =>
    (
      await t.db
        .selectFrom('audit_log')
        .select(['action', 'target'])
        .where('tenant_id', '=', a.tenant.id)
        .where('action', 'like', 'product.%')
        .orderBy('created_at')
        .orderBy('id')
        .execute()
    ).map((e) => `${e.action} ${e.target}`);

  it('the first template goes to a product "General"; a new product is listed, and templates are made in it and filtered by it', async () => {
    const first = await newTemplate('first_terms');
    expect(first.statusCode).toBe(303);
    expect(textOf((await admin.get('/backoffice/products')).body)).toContain(
      'general General 1 active',
    );

    const made = await newProduct({ code: 'retail', name: 'Retail banking', description: 'Cards' });
    expect(made.statusCode).toBe(303);
    expect(made.headers.location).toBe('/backoffice/products/retail?notice=created');
    const form = await admin.get('/backoffice/templates/new');
    expect(form.body).toContain('<option value="retail">Retail banking</option>');
    expect((await newTemplate('card_terms', 'retail')).statusCode).toBe(303);
    expect(textOf((await admin.get('/backoffice/templates/card_terms')).body)).toContain(
      'Product Retail banking',
    );

    const retail = textOf((await admin.get('/backoffice/templates?product=retail')).body);
    expect(retail).toContain('card_terms');
    expect(retail).not.toContain('first_terms');
    const all = textOf((await admin.get('/backoffice/templates')).body);
    expect(all).toContain('card_terms Template card_terms Retail banking');
    expect(all).toContain('first_terms Template first_terms General');
    expect(await auditActions()).toEqual(['product.created retail']);
  });

  it('a product code in use, or malformed, answers 400 with the form and its message', async () => {
    const taken = await newProduct({ code: 'retail', name: 'Again' });
    expect(taken.statusCode).toBe(400);
    expect(textOf(taken.body)).toContain('A product with code "retail" already exists.');
    const malformed = await newProduct({ code: '-bad code-', name: 'Bad' });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.body).toMatch(/id="code"[^>]*aria-invalid="true"/);
  });

  it('renaming keeps the code; an archived product takes no new template (400) and its templates go on working; restoring lets it take them again', async () => {
    await admin.get('/backoffice/products/retail');
    const renamed = await admin.post('/backoffice/products/retail', {
      name: 'Retail and cards',
      description: 'Cards, accounts',
    });
    expect(renamed.statusCode).toBe(303);
    expect(textOf((await admin.get('/backoffice/products/retail')).body)).toContain(
      'Retail and cards',
    );

    const template = 'retail_live';
    await t.db
      .transaction()
      .execute((trx) =>
        createTemplate(trx, a.tenant.id, { code: template, name: 'Live', product: 'retail' }),
      );
    await publish(t.db, a.tenant.id, template);

    await admin.get('/backoffice/products/retail');
    expect((await admin.post('/backoffice/products/retail/archive', {})).statusCode).toBe(303);
    const form = await admin.get('/backoffice/templates/new');
    expect(form.body).not.toContain('<option value="retail">');
    const refused = await newTemplate('retail_later', 'retail');
    expect(refused.statusCode).toBe(400);
    expect(textOf(refused.body)).toContain('Choose an active product of the list.');
    expect((await apiOf(t.app, a.headers).latest(template)).statusCode).toBe(200);
    expect(textOf((await admin.get('/backoffice/products')).body)).toContain(
      'retail Retail and cards 2 archived',
    );

    await admin.get('/backoffice/products/retail');
    expect((await admin.post('/backoffice/products/retail/restore', {})).statusCode).toBe(303);
    expect((await newTemplate('retail_later', 'retail')).statusCode).toBe(303);
    expect(await auditActions()).toEqual([
      'product.created retail',
      'product.changed retail',
      'product.archived retail',
      'product.restored retail',
    ]);
  });

  it("a product's page lists its templates, each linked to its page, and no other product's", async () => {
    expect((await newProduct({ code: 'savings', name: 'Savings' })).statusCode).toBe(303);
    expect((await newTemplate('savings_fees', 'savings')).statusCode).toBe(303);
    expect((await newTemplate('savings_terms', 'savings')).statusCode).toBe(303);
    const page = await admin.get('/backoffice/products/savings');
    expect(page.statusCode).toBe(200);
    const listed = [
      ...page.body.matchAll(/<a href="\/backoffice\/templates\/([a-z_]+)">\1<\/a>/g),
    ].map((m) => m[1]);
    expect(listed).toEqual(['savings_fees', 'savings_terms']);
    expect(textOf(page.body)).toContain('savings_fees Template savings_fees');
    const empty = await newProduct({ code: 'unused_line', name: 'Unused line' });
    expect(empty.statusCode).toBe(303);
    expect(textOf((await admin.get('/backoffice/products/unused_line')).body)).toContain(
      'No template in this product yet.',
    );
  });

  it('a reviewer sees products but may not make or change them (403)', async () => {
    expect((await reviewer.get('/backoffice/products')).statusCode).toBe(200);
    expect((await reviewer.get('/backoffice/products/retail')).body).not.toContain(
      'Archive this product',
    );
    await reviewer.get('/backoffice/products');
    expect((await reviewer.post('/backoffice/products', { code: 'x', name: 'X' })).statusCode).toBe(
      403,
    );
    expect((await reviewer.post('/backoffice/products/retail/archive', {})).statusCode).toBe(403);
  });

  it('the dashboard and the decisions export filter by product', async () => {
    const api = apiOf(t.app, a.headers);
    const cards = await publish(t.db, a.tenant.id, 'card_terms');
    const general = await publish(t.db, a.tenant.id, 'first_terms');
    expect((await api.decide('cara', cards.consent_version_id, 'given')).statusCode).toBe(201);
    expect((await api.decide('gus', general.consent_version_id, 'given')).statusCode).toBe(201);

    const dashboard = textOf((await admin.get('/backoffice/dashboard?product=retail')).body);
    expect(dashboard).toContain('Template card_terms');
    expect(dashboard).not.toContain('Template first_terms');

    const exported = await admin.get('/backoffice/exports/decisions.csv?template=&product=retail');
    expect(exported.statusCode).toBe(200);
    const rows = parse(exported.body, { columns: true }) as Array<Record<string, string>>;
    expect(rows.map((r) => r.template_code)).toEqual(['card_terms']);
    const unknown = await admin.get('/backoffice/exports/decisions.csv?template=&product=nope');
    expect(unknown.statusCode).toBe(400);
    expect(textOf(unknown.body)).toContain('There is no such product.');
  });
});
