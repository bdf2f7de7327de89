import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiOf } from '../helpers/api.js';
import type { TestApp } from '../helpers/app.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { storeAgnostic } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';
import { type PageClient, signedIn, startBackofficeApp, textOf } from './support.js';

/** Taking templates out of use: deleted when never published, archived otherwise. */
describe.each(storeAgnostic)('deleting and archiving templates on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let admin: PageClient;

  beforeAll(async () => {
    t = await startBackofficeApp(store);
    a = await seedTenant(t.db);
    admin = await signedIn(t.app, a.tenant.email);
  });
  afterAll(() => t?.close());

  const retire = async (code: string, confirm = true) => {
    await admin.get(`/backoffice/templates/${code}`);
    return admin.post(`/backoffice/templates/${code}/retire`, confirm ? { confirm: 'true' } : {});
  };
  const actions = async (code: string) =>
    (
      await t.db
        .selectFrom('audit_log')
        .select('action')
        .where('tenant_id', '=', a.tenant.id)
        .where('target', '=', code)
        .where('action', 'like', 'template.%')
        .orderBy('created_at')
        .orderBy('id')
        .execute()
    ).map((e) => e.action);

  it('a template never published is deleted with its drafts, after the box is ticked; audited', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    await admin.submit(
      `/backoffice/templates/${code}/versions/new`,
      `/backoffice/templates/${code}/versions`,
      { tag: '1.0', content_html: '<p>Never out</p>' },
    );
    const unconfirmed = await retire(code, false);
    expect(unconfirmed.statusCode).toBe(400);
    expect(textOf(unconfirmed.body)).toContain('Tick the box to confirm.');
    const deleted = await retire(code);
    expect(deleted.statusCode).toBe(303);
    expect(deleted.headers.location).toBe('/backoffice/templates?notice=deleted');
    const left = await t.db
      .selectFrom('templates')
      .innerJoin('template_versions', 'template_versions.template_id', 'templates.id')
      .select('templates.id')
      .where('templates.code', '=', code)
      .execute();
    expect(left).toEqual([]);
    expect((await admin.get(`/backoffice/templates/${code}`)).statusCode).toBe(404);
    expect(await actions(code)).toEqual(['template.deleted']);
  });

  it('a published template is archived, decisions or not: latest and pending answer 404 1004 within a second, its record stays; restored, it answers again', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const v1 = await publish(t.db, a.tenant.id, code, { tag: '1.0' });
    const api = apiOf(t.app, a.headers);
    expect((await api.decide('ann', v1.consent_version_id, 'given')).statusCode).toBe(201);

    const archived = await retire(code);
    expect(archived.statusCode).toBe(303);
    expect(archived.headers.location).toBe(`/backoffice/templates/${code}?notice=archived`);
    const notFound = JSON.stringify({ code: '1004', message: 'Template not found.' });
    await expect
      .poll(async () => (await api.latest(code)).body, { timeout: budget(1_500), interval: 50 })
      .toBe(notFound);
    expect((await api.pending('ann', code)).statusCode).toBe(404);
    // A customer may still withdraw what they gave on it: the decision is recorded.
    expect((await api.decide('ann', v1.consent_version_id, 'withdraw')).statusCode).toBe(201);
    const history = await t.app.inject({
      method: 'GET',
      url: '/api/v1/customers/ann/consents',
      headers: a.headers,
    });
    expect(history.body).toContain(v1.consent_version_id);
    const shown = textOf((await admin.get(`/backoffice/templates/${code}`)).body);
    expect(shown).toContain('archived');
    expect(shown).toContain('the API answers 404 for its latest version and pending state');
    // No new draft for an archived template.
    await admin.get(`/backoffice/templates/${code}`);
    const draft = await admin.post(`/backoffice/templates/${code}/versions`, {
      tag: '2.0',
      content_html: '<p>Two</p>',
    });
    expect(draft.statusCode).toBe(400);
    expect(textOf(draft.body)).toContain('This template is archived: restore it first.');

    await admin.get(`/backoffice/templates/${code}`);
    expect((await admin.post(`/backoffice/templates/${code}/restore`, {})).statusCode).toBe(303);
    await expect
      .poll(async () => (await api.latest(code)).statusCode, {
        timeout: budget(1_500),
        interval: 50,
      })
      .toBe(200);
    expect(await actions(code)).toEqual(['template.archived', 'template.restored']);
  });

  it('a published template with no decision is archived too, not deleted', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    await publish(t.db, a.tenant.id, code, { tag: '1.0' });
    expect((await retire(code)).headers.location).toBe(
      `/backoffice/templates/${code}?notice=archived`,
    );
    const row = await t.db
      .selectFrom('templates')
      .select('archived_at')
      .where('code', '=', code)
      .executeTakeFirstOrThrow();
    expect(row.archived_at).not.toBeNull();
  });
});
