import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPartner } from '../../src/partners/index.js';
import { publishOutsideReview } from '../../src/templates/index.js';
import { json, type TestApp } from '../helpers/app.js';
import { type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { storeAgnostic } from '../helpers/stores.js';
import {
  fourEyesOff,
  type PageClient,
  signedIn,
  startBackofficeApp,
  textOf,
  writeDraft,
} from './support.js';

describe.each(storeAgnostic)("a draft's partners in the back-office on $name", (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let admin: PageClient;
  let code: string;
  const by = () =>
    ({
      tenantId: a.tenant.id,
      actorKind: 'operator',
      actor: 'test',
      ip: 'local',
      userAgent: null,
    }) as const;

  beforeAll(async () => {
    t = await startBackofficeApp(store);
    a = await seedTenant(t.db);
    await fourEyesOff(t.db, a.tenant.id);
    admin = await signedIn(t.app, a.tenant.email);
    for (const [partner, name] of [
      ['acme', 'Acme Insurance'],
      ['beta', 'Beta Bank'],
    ]) {
      await t.db
        .transaction()
        .execute((trx) => createPartner(trx, by(), a.tenant.id, { code: partner, name }));
    }
    code = await seedTemplate(t.db, a.tenant.id);
    await t.db
      .transaction()
      .execute((trx) =>
        publishOutsideReview(
          trx,
          by(),
          a.tenant.id,
          code,
          { tag: '1.0', content_html: '<p>We share with Acme.</p>' },
          { partners: ['acme'] },
        ),
      );
  });
  afterAll(() => t?.close());

  const versionPath = (id: string) => `/backoffice/templates/${code}/versions/${id}`;
  const boxOf = (page: string, partner: string) =>
    new RegExp(`<input type="checkbox" name="partners" value="${partner}"( checked)?>`).exec(
      page,
    )?.[1] === ' checked';

  it("a new draft starts with the live version's partners; saved with others, the review shows the list and what changed; once submitted it is frozen; approved, latest answers it", async () => {
    const form = (await admin.get(`/backoffice/templates/${code}/versions/new`)).body;
    expect(boxOf(form, 'acme')).toBe(true);
    expect(boxOf(form, 'beta')).toBe(false);

    const id = await writeDraft(admin, code, {
      tag: '2.0',
      content_html: '<p>We share with Beta.</p>',
      partners_shown: 'true',
      partners: 'beta',
    });
    const page = (await admin.get(versionPath(id))).body;
    expect(boxOf(page, 'beta')).toBe(true);
    expect(boxOf(page, 'acme')).toBe(false);

    const unknown = await admin.post(versionPath(id), {
      tag: '2.0',
      content_html: '<p>We share with Beta.</p>',
      allow_reconsent: 'true',
      partners_shown: 'true',
      partners: 'nobody',
    });
    expect(unknown.statusCode).toBe(400);
    expect(textOf(unknown.body)).toContain('partners: names no partner of this tenant: "nobody"');

    await admin.get(`${versionPath(id)}/review`);
    expect((await admin.post(`${versionPath(id)}/submit`, { comment: '' })).statusCode).toBe(303);
    const review = textOf((await admin.get(`${versionPath(id)}/review`)).body);
    expect(review).toContain('Partners Beta Bank beta');
    expect(review).toMatch(
      /Against version 1: added Beta Bank \(\s*beta\); removed Acme Insurance \(\s*acme\)\./,
    );

    await admin.get(versionPath(id));
    const frozen = await admin.post(versionPath(id), {
      tag: '2.0',
      content_html: '<p>We share with Beta.</p>',
      allow_reconsent: 'true',
      partners_shown: 'true',
      partners: 'acme',
    });
    expect(frozen.statusCode).toBe(409);

    await admin.get(`${versionPath(id)}/review`);
    expect((await admin.post(`${versionPath(id)}/pass`, { comment: '' })).statusCode).toBe(303);
    await admin.get(`${versionPath(id)}/review`);
    expect(
      (await admin.post(`${versionPath(id)}/approve`, { comment: '', publish_now: 'true' }))
        .statusCode,
    ).toBe(303);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const latest = await t.app.inject({
      method: 'GET',
      url: `/api/v1/consent-templates/${code}/latest`,
      headers: a.headers,
    });
    expect(json(latest).data).toMatchObject({
      tag: '2.0',
      partners: [{ code: 'beta', name: 'Beta Bank' }],
    });
    const audited = await t.db
      .selectFrom('audit_log')
      .select('action')
      .where('tenant_id', '=', a.tenant.id)
      .where('action', '=', 'version.partners_changed')
      .execute();
    expect(audited.length).toBe(1);
  });
});
