import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../../src/accounts/users.js';
import { createProduct } from '../../src/products/service.js';
import { publishOutsideReview } from '../../src/templates/actions.js';
import { hashPassword } from '../../src/tenants/passwords.js';
import type { TestApp } from '../helpers/app.js';
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

/** A template's name, product and default locale, changed from its page (templates:create). */
describe.each(stores)("changing a template's details on $name", (store) => {
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
});
