import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../../src/accounts/users.js';
import { setReleasePartners } from '../../src/partners/index.js';
import { hashPassword } from '../../src/tenants/passwords.js';
import type { TestApp } from '../helpers/app.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { storeAgnostic } from '../helpers/stores.js';
import { testPasswordHashCost } from '../helpers/time.js';
import {
  type PageClient,
  signedIn,
  startBackofficeApp,
  tenantPassword,
  textOf,
} from './support.js';

describe.each(storeAgnostic)('partners in the back-office on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let b: SeededTenant;
  let admin: PageClient;
  let editor: PageClient;
  let service: PageClient;
  let otherAdmin: PageClient;

  beforeAll(async () => {
    t = await startBackofficeApp(store);
    a = await seedTenant(t.db);
    b = await seedTenant(t.db);
    admin = await signedIn(t.app, a.tenant.email);
    otherAdmin = await signedIn(t.app, b.tenant.email);
    const hash = await hashPassword(tenantPassword, testPasswordHashCost);
    for (const role of ['editor', 'customer_service']) {
      await t.db.transaction().execute((trx) =>
        addUser(trx, a.tenant.id, {
          email: `${role}-${a.tenant.alias}@example.test`,
          name: role,
          roles: [role],
          passwordHash: hash,
        }),
      );
    }
    editor = await signedIn(t.app, `editor-${a.tenant.alias}@example.test`);
    service = await signedIn(t.app, `customer_service-${a.tenant.alias}@example.test`);
  });
  afterAll(() => t?.close());

  const newPartner = (client: PageClient, fields: Record<string, string>) =>
    client.submit('/backoffice/partners/new', '/backoffice/partners', {
      purpose: '',
      country: '',
      policy_url: '',
      ...fields,
    });
  const audit = async () =>
    (
      await t.db
        .selectFrom('audit_log')
        .select(['action', 'target', 'actor'])
        .where('tenant_id', '=', a.tenant.id)
        .where('action', 'like', 'partner.%')
        .orderBy('created_at')
        .orderBy('id')
        .execute()
    ).map((e) => `${e.action} ${e.target} by ${e.actor}`);

  it('an editor adds a partner; it is listed, its page shows its fields, and the act is audited', async () => {
    const made = await newPartner(editor, {
      code: 'acme-insure',
      name: 'Acme Insurance',
      purpose: 'Insurance offers',
      country: 'th',
      policy_url: 'https://acme.example/privacy',
    });
    expect(made.statusCode).toBe(303);
    expect(made.headers.location).toBe('/backoffice/partners/acme-insure?notice=created');
    expect(textOf((await admin.get('/backoffice/partners')).body)).toContain(
      'acme-insure Acme Insurance TH 0',
    );
    const page = textOf((await admin.get('/backoffice/partners/acme-insure')).body);
    expect(page).toContain('Insurance offers');
    expect(page).toContain('Country TH');
    expect(page).toContain('Privacy policy https://acme.example/privacy');
    expect(await audit()).toEqual([
      `partner.created acme-insure by editor-${a.tenant.alias}@example.test`,
    ]);
  });

  it('bad input answers the form again with 400 and says which field is wrong; nothing is made', async () => {
    const bad = await newPartner(admin, {
      code: 'Bad Code',
      name: 'X',
      country: 'XX',
      policy_url: 'http://x.example',
    });
    expect(bad.statusCode).toBe(400);
    const text = textOf(bad.body);
    expect(text).toContain('A code of lowercase letters, digits and -');
    const code = await newPartner(admin, { code: 'ok', name: 'X', country: 'XX' });
    expect(code.statusCode).toBe(400);
    expect(textOf(code.body)).toContain('A two-letter ISO 3166-1 country code');
    const url = await newPartner(admin, { code: 'ok', name: 'X', policy_url: 'http://x.example' });
    expect(url.statusCode).toBe(400);
    expect(textOf(url.body)).toContain('An address starting with https://.');
    const taken = await newPartner(admin, { code: 'acme-insure', name: 'Again' });
    expect(taken.statusCode).toBe(400);
    expect(textOf(taken.body)).toContain('A partner with code "acme-insure" already exists.');
    expect((await admin.get('/backoffice/partners/ok')).statusCode).toBe(404);
  });

  it('a change keeps the code and is audited; the other tenant neither sees nor changes it', async () => {
    await editor.get('/backoffice/partners/acme-insure');
    const saved = await editor.post('/backoffice/partners/acme-insure', {
      name: 'Acme Insurance plc',
      purpose: 'Insurance offers',
      country: 'GB',
      policy_url: '',
    });
    expect(saved.statusCode).toBe(303);
    const page = textOf((await admin.get('/backoffice/partners/acme-insure')).body);
    expect(page).toContain('Acme Insurance plc');
    expect(page).toContain('Country GB');
    expect(page).toContain('Privacy policy not given');
    expect((await audit()).at(-1)).toBe(
      `partner.changed acme-insure by editor-${a.tenant.alias}@example.test`,
    );

    expect((await otherAdmin.get('/backoffice/partners/acme-insure')).statusCode).toBe(404);
    expect(textOf((await otherAdmin.get('/backoffice/partners')).body)).not.toContain('acme');
    await otherAdmin.get('/backoffice/partners');
    const foreign = await otherAdmin.post('/backoffice/partners/acme-insure', { name: 'Mine' });
    expect(foreign.statusCode).toBe(404);
  });

  it('the editor may not delete, customer service may not even look: both get 403', async () => {
    await editor.get('/backoffice/partners/acme-insure');
    expect((await editor.post('/backoffice/partners/acme-insure/delete', {})).statusCode).toBe(403);
    expect((await editor.get('/backoffice/partners/acme-insure')).body).not.toContain(
      'Delete this partner',
    );
    expect((await service.get('/backoffice/partners')).statusCode).toBe(403);
    expect((await service.get('/backoffice/partners/acme-insure')).statusCode).toBe(403);
    await service.get('/backoffice/dashboard');
    expect((await service.post('/backoffice/partners', { code: 'x', name: 'X' })).statusCode).toBe(
      403,
    );
  });

  it('deleting a partner a version lists is refused with 409 and the reason; once unlisted, it is deleted and audited', async () => {
    await t.db
      .transaction()
      .execute((trx) => setReleasePartners(trx, a.tenant.id, 'release-1', ['acme-insure']));
    await admin.get('/backoffice/partners/acme-insure');
    const refused = await admin.post('/backoffice/partners/acme-insure/delete', {});
    expect(refused.statusCode).toBe(409);
    expect(textOf(refused.body)).toContain(
      'Partner "acme-insure" is listed by a version of a template, so it cannot be deleted.',
    );
    await t.db
      .transaction()
      .execute((trx) => setReleasePartners(trx, a.tenant.id, 'release-1', []));
    await admin.get('/backoffice/partners/acme-insure');
    const deleted = await admin.post('/backoffice/partners/acme-insure/delete', {});
    expect(deleted.statusCode).toBe(303);
    expect((await admin.get('/backoffice/partners/acme-insure')).statusCode).toBe(404);
    expect((await audit()).at(-1)).toBe(`partner.deleted acme-insure by ${a.tenant.email}`);
  });
});
