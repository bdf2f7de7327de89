import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPartner, deletePartner, getPartner } from '../../src/partners/index.js';
import {
  createDraftAs,
  getTemplateByCode,
  publishOutsideReview,
  releasePartners,
  retireTemplate,
  setDraftPartnersAs,
  takeReviewStep,
} from '../../src/templates/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';

/** The operator who makes the drafts: a user id, a UUID as the service's are. */
const operatorId = randomUUID();

describe.each(stores)("a draft's partners on $name", (store) => {
  let t: TestApp;
  let a: SeededTenant;
  const by = () =>
    ({
      tenantId: a.tenant.id,
      actorKind: 'tenant',
      actor: a.tenant.email,
      ip: '127.0.0.1',
      userAgent: null,
      userId: operatorId,
    }) as const;

  beforeAll(async () => {
    t = await startTestApp(store);
    a = await seedTenant(t.db);
    for (const code of ['acme', 'beta', 'gamma']) {
      await t.db
        .transaction()
        .execute((trx) =>
          createPartner(trx, by(), a.tenant.id, { code, name: code.toUpperCase() }),
        );
    }
  });
  afterAll(() => t?.close());

  const templateOf = async (code: string) => getTemplateByCode(t.db, a.tenant.id, code);
  const audit = async () =>
    (
      await t.db
        .selectFrom('audit_log')
        .select(['action', 'details'])
        .where('tenant_id', '=', a.tenant.id)
        .where('action', '=', 'version.partners_changed')
        .orderBy('created_at')
        .orderBy('id')
        .execute()
    ).map((e) => (typeof e.details === 'string' ? JSON.parse(e.details) : e.details));

  it('a draft lists partners, changes them while a draft (audited: added, removed), and they freeze once submitted (409 1005)', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const template = await templateOf(code);
    const draft = await t.db
      .transaction()
      .execute((trx) =>
        createDraftAs(trx, by(), template, { tag: '1.0', content_html: '<p>We share.</p>' }),
      );
    const set = (codes: string[]) =>
      t.db.transaction().execute((trx) => setDraftPartnersAs(trx, by(), template, draft.id, codes));
    expect(await set(['beta', 'acme'])).toEqual([
      { code: 'acme', name: 'ACME' },
      { code: 'beta', name: 'BETA' },
    ]);
    await set(['acme', 'gamma']);
    await set(['gamma', 'acme']);
    expect(await audit()).toEqual([
      { version_id: draft.id, added: ['acme', 'beta'], removed: [] },
      { version_id: draft.id, added: ['gamma'], removed: ['beta'] },
    ]);
    await expect(set(['acme', 'nobody'])).rejects.toMatchObject({
      status: 400,
      details: [{ field: 'partners', issue: 'names no partner of this tenant: "nobody"' }],
    });
    expect((await releasePartners(t.db, template, draft.id)).map((p) => p.code)).toEqual([
      'acme',
      'gamma',
    ]);

    await t.db
      .transaction()
      .execute((trx) => takeReviewStep(trx, by(), 'submitted', template, draft.id, ''));
    await expect(set(['beta'])).rejects.toMatchObject({
      status: 409,
      code: '1005',
      message: 'Only a draft can be changed: this version is waiting for review.',
    });
    expect((await releasePartners(t.db, template, draft.id)).map((p) => p.code)).toEqual([
      'acme',
      'gamma',
    ]);
  });

  it('a new draft from the published release starts with its partners; a published release refuses a change', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const published = await t.db
      .transaction()
      .execute((trx) =>
        publishOutsideReview(
          trx,
          by(),
          a.tenant.id,
          code,
          { tag: '1.0', content_html: '<p>One</p>' },
          { partners: ['beta'] },
        ),
      );
    const template = await templateOf(code);
    await expect(
      t.db
        .transaction()
        .execute((trx) => setDraftPartnersAs(trx, by(), template, published.id, ['acme'])),
    ).rejects.toMatchObject({ status: 409, message: 'A published version cannot be changed.' });
    const next = await t.db
      .transaction()
      .execute((trx) =>
        createDraftAs(
          trx,
          by(),
          template,
          { tag: '2.0', content_html: '<p>Two</p>' },
          published.id,
        ),
      );
    expect(await releasePartners(t.db, template, next.id)).toEqual([
      { code: 'beta', name: 'BETA' },
    ]);
  });

  it('a template never published is deleted with its drafts and their lists: the partner they listed may then be deleted', async () => {
    await t.db
      .transaction()
      .execute((trx) => createPartner(trx, by(), a.tenant.id, { code: 'short-lived', name: 'S' }));
    const code = await seedTemplate(t.db, a.tenant.id);
    const template = await templateOf(code);
    const draft = await t.db
      .transaction()
      .execute((trx) =>
        createDraftAs(trx, by(), template, { tag: '1.0', content_html: '<p>Draft</p>' }),
      );
    await t.db
      .transaction()
      .execute((trx) => setDraftPartnersAs(trx, by(), template, draft.id, ['short-lived']));
    await expect(
      t.db.transaction().execute((trx) => deletePartner(trx, by(), a.tenant.id, 'short-lived')),
    ).rejects.toMatchObject({ status: 409 });
    expect(await t.db.transaction().execute((trx) => retireTemplate(trx, by(), template))).toBe(
      'deleted',
    );
    await t.db.transaction().execute((trx) => deletePartner(trx, by(), a.tenant.id, 'short-lived'));
    await expect(getPartner(t.db, a.tenant.id, 'short-lived')).rejects.toMatchObject({
      code: '1004',
    });
  });
});
