import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiOf } from '../helpers/api.js';
import { json, type TestApp } from '../helpers/app.js';
import { type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { storeAgnostic } from '../helpers/stores.js';
import {
  fourEyesOff,
  type PageClient,
  signedIn,
  startBackofficeApp,
  textOf,
  versionPagePath,
  writeDraft,
} from './support.js';

/**
 * A release written, reviewed and approved as one unit, with a tab per locale; the review shows
 * each locale's changes; dropping a locale an earlier release had needs the approver's word.
 */
describe.each(storeAgnostic)('releases in several locales in the back-office on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let admin: PageClient;

  beforeAll(async () => {
    t = await startBackofficeApp(store);
    a = await seedTenant(t.db);
    await fourEyesOff(t.db, a.tenant.id);
    admin = await signedIn(t.app, a.tenant.email);
  });
  afterAll(() => t?.close());

  const versionPath = versionPagePath;
  const draft = (code: string, tag: string, content: string) =>
    writeDraft(admin, code, { tag, content_html: content });

  async function addLocale(code: string, id: string, locale: string, content: string) {
    await admin.get(`${versionPath(code, id)}?locale=new`);
    return admin.post(`${versionPath(code, id)}/locales`, { locale, content_html: content });
  }

  async function approve(code: string, id: string, fields: Record<string, string> = {}) {
    for (const step of ['submit', 'pass']) {
      await admin.get(`${versionPath(code, id)}/review`);
      expect((await admin.post(`${versionPath(code, id)}/${step}`, {})).statusCode).toBe(303);
    }
    await admin.get(`${versionPath(code, id)}/review`);
    return admin.post(`${versionPath(code, id)}/approve`, { publish_now: 'true', ...fields });
  }

  const audit = (action: string) =>
    t.db
      .selectFrom('audit_log')
      .select(['target', 'details'])
      .where('tenant_id', '=', a.tenant.id)
      .where('action', '=', action)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .executeTakeFirst();

  it('a draft gets a Thai tab beside its English text; both are approved as one release, each its own consent_version_id', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const id = await draft(code, '1.0', '<p>We keep your e-mail address.</p>');
    const first = textOf((await admin.get(versionPath(code, id))).body);
    expect(first).toContain('English en Add a locale');

    const bad = await addLocale(code, id, 'not a tag', '<p>x</p>');
    expect(bad.statusCode).toBe(400);
    expect(textOf(bad.body)).toContain('Give a BCP 47 language tag, such as th, en-GB or zh-Hant.');

    const saved = await addLocale(code, id, 'th', '<p>เราเก็บที่อยู่อีเมลของคุณ</p>');
    expect(saved.statusCode, textOf(saved.body)).toBe(303);
    expect(saved.headers.location).toBe(`${versionPath(code, id)}?locale=th&notice=locale_saved`);
    const thai = await admin.get(String(saved.headers.location));
    const thaiText = textOf(thai.body);
    expect(thaiText).toContain('Locale saved.');
    expect(thaiText).toContain('English en Thai th Add a locale');
    expect(thai.body).toContain(
      '<div class="content-preview" lang="th" tabindex="0" role="region" aria-label="Content"><p>เราเก็บที่อยู่อีเมลของคุณ</p></div>',
    );
    expect(thai.body).toMatch(/<a href="[^"]+\?locale=th" aria-current="page">Thai/);
    const entry = await audit('version.locale_saved');
    expect(JSON.parse(String(entry?.details))).toMatchObject({ version_id: id, locale: 'th' });

    // The review page shows each locale's text.
    await admin.get(`${versionPath(code, id)}/review`);
    const review = textOf((await admin.get(`${versionPath(code, id)}/review`)).body);
    expect(review).toContain('English en As customers will see it We keep your e-mail address.');
    expect(review).toContain('Thai th As customers will see it เราเก็บที่อยู่อีเมลของคุณ');

    expect((await approve(code, id)).statusCode).toBe(303);
    const rows = await t.db
      .selectFrom('template_versions')
      .select(['id', 'locale', 'status', 'version'])
      .where('release_id', '=', id)
      .orderBy('locale')
      .execute();
    expect(rows.map((r) => [r.locale, r.status, r.version])).toEqual([
      ['en', 'published', 1],
      ['th', 'published', 1],
    ]);
    const api = apiOf(t.app, a.headers);
    const latest = await t.app.inject({
      url: `/api/v1/consent-templates/${code}/latest?locale=th`,
      headers: a.headers,
    });
    expect(json(latest).data).toMatchObject({
      consent_version_id: rows[1]?.id,
      locale: 'th',
      content_html: '<p>เราเก็บที่อยู่อีเมลของคุณ</p>',
    });
    expect(json(await api.latest(code)).data.consent_version_id).toBe(id);

    // Decisions on either text: the Decisions page filters by locale, and by version across
    // locales; the CSV and the decision's page name the locale.
    expect((await api.decide('cus-en', id, 'given')).statusCode).toBe(201);
    const thaiDecision = await api.decide('cus-th', String(rows[1]?.id), 'given');
    expect(thaiDecision.statusCode).toBe(201);
    const list = (query: string) =>
      admin.get(`/backoffice/decisions?${query}`).then((r) => textOf(r.body));
    const byLocale = await list('locale=th');
    expect(byLocale).toContain('cus-th');
    expect(byLocale).not.toContain('cus-en');
    expect(byLocale).toContain('1 (1.0, th)');
    const byVersion = await list(`template=${code}&version=1`);
    expect(byVersion).toContain('cus-th');
    expect(byVersion).toContain('cus-en');
    const badFilter = await admin.get('/backoffice/decisions?locale=not%20a%20tag');
    expect(badFilter.statusCode).toBe(400);
    expect(textOf(badFilter.body)).toContain(
      'A BCP 47 language tag, such as th or en-GB, or nothing.',
    );
    const csv = (await admin.get(`/backoffice/decisions.csv?template=${code}&locale=th`)).body;
    expect(csv.split('\r\n')[0]?.endsWith(',content_sha256,locale,decided_on,time_zone')).toBe(
      true,
    );
    expect(csv.split('\r\n')[1]).toMatch(/,th,\d{4}-\d{2}-\d{2},UTC$/);
    const page = await admin.get(`/backoffice/decisions/${json(thaiDecision).data.decision_id}`);
    expect(textOf(page.body)).toContain('Locale th');
  });

  it("the Decisions page's locale filter matches as the API chooses a text: th finds th-TH, th-TH finds th, en-GB finds en", async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const id = await draft(code, '1.0', '<p>We keep your e-mail address.</p>');
    expect((await addLocale(code, id, 'th', '<p>เราเก็บอีเมล</p>')).statusCode).toBe(303);
    expect((await addLocale(code, id, 'th-TH', '<p>เราเก็บอีเมลของท่าน</p>')).statusCode).toBe(303);
    expect((await approve(code, id)).statusCode).toBe(303);
    const variants = await t.db
      .selectFrom('template_versions')
      .select(['id', 'locale'])
      .where('release_id', '=', id)
      .execute();
    const variant = (locale: string) => String(variants.find((v) => v.locale === locale)?.id);
    const api = apiOf(t.app, a.headers);
    for (const [customer, locale] of [
      ['range-en', 'en'],
      ['range-th', 'th'],
      ['range-th-th', 'th-TH'],
    ] as const) {
      expect((await api.decide(customer, variant(locale), 'given')).statusCode).toBe(201);
    }
    const customers = async (locale: string) => {
      const page = await admin.get(`/backoffice/decisions?template=${code}&locale=${locale}`);
      expect(page.statusCode).toBe(200);
      return [...textOf(page.body).matchAll(/range-[a-z-]+/g)].map((m) => m[0]).sort();
    };
    // A range finds the tags under it (RFC 4647 filtering), and a tag finds the texts the API
    // would answer it with (lookup: th-TH, then th); never a neighbour.
    expect(await customers('th')).toEqual(['range-th', 'range-th-th']);
    expect(await customers('th-TH')).toEqual(['range-th', 'range-th-th']);
    expect(await customers('th-th')).toEqual(['range-th', 'range-th-th']);
    expect(await customers('en-GB')).toEqual(['range-en']);
    expect(await customers('th-LA')).toEqual(['range-th']);
    expect(await customers('zh')).toEqual([]);
  });

  it('the next release shows what changes per locale; leaving Thai out needs the approver to confirm it, and is audited', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const one = await draft(code, '1.0', '<p>We keep your e-mail address.</p>');
    await addLocale(code, one, 'th', '<p>เราเก็บอีเมล</p>');
    expect((await approve(code, one)).statusCode).toBe(303);

    const two = await draft(code, '2.0', '<p>We keep your e-mail address and phone.</p>');
    await admin.get(`${versionPath(code, two)}/review`);
    const review = textOf((await admin.get(`${versionPath(code, two)}/review`)).body);
    expect(review).toContain(
      'English en What changes Against version 1 (tag 1.0): 2 words added, 0 words removed.',
    );
    expect(review).toContain(
      'The latest version is also in th, which this one lacks: customers asking for it would get the default locale.',
    );
    const refused = await approve(code, two);
    expect(refused.statusCode).toBe(400);
    expect(textOf(refused.body)).toContain(
      'The latest version is also in th, which this one lacks: confirm dropping it, or add it first.',
    );
    expect(
      (
        await t.db
          .selectFrom('template_versions')
          .select('status')
          .where('id', '=', two)
          .executeTakeFirstOrThrow()
      ).status,
    ).toBe('reviewed');
    await admin.get(`${versionPath(code, two)}/review`);
    const confirmed = await admin.post(`${versionPath(code, two)}/approve`, {
      publish_now: 'true',
      drop_locales: 'true',
    });
    expect(confirmed.statusCode).toBe(303);
    const published = await audit('version.published');
    expect(JSON.parse(String(published?.details))).toMatchObject({
      version_id: two,
      version: 2,
      dropped_locales: ['th'],
    });

    // A third release brings Thai back: its review says the locale is new against version 2.
    const three = await draft(code, '3.0', '<p>Three.</p>');
    await addLocale(code, three, 'th', '<p>สาม</p>');
    await admin.get(`${versionPath(code, three)}/review`);
    expect(textOf((await admin.get(`${versionPath(code, three)}/review`)).body)).toContain(
      'Thai th What changes A new locale: version 2 has no th text.',
    );
  });

  it('a template is created in its default locale, which its first version takes; a bad tag is refused on the form', async () => {
    const bad = await admin.submit('/backoffice/templates/new', '/backoffice/templates', {
      code: 'bank_th',
      name: 'Bank',
      locale: 'not a tag',
    });
    expect(bad.statusCode).toBe(400);
    expect(textOf(bad.body)).toContain('A BCP 47 language tag, such as en, th or en-GB.');
    const made = await admin.submit('/backoffice/templates/new', '/backoffice/templates', {
      code: 'bank_th',
      name: 'Bank',
      locale: 'th',
      tag: '1.0',
      content_html: '<p>ข้อกำหนด</p>',
    });
    expect(made.statusCode).toBe(303);
    const rows = await t.db
      .selectFrom('templates as t')
      .innerJoin('template_versions as v', 'v.template_id', 't.id')
      .select(['t.default_locale', 'v.locale'])
      .where('t.tenant_id', '=', a.tenant.id)
      .where('t.code', '=', 'bank_th')
      .execute();
    expect(rows).toEqual([{ default_locale: 'th', locale: 'th' }]);
    expect(textOf((await admin.get('/backoffice/templates/bank_th')).body)).toContain(
      'Default locale Thai th',
    );
  });

  it("another locale's id is no release: its own page, review and steps are 404", async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const id = await draft(code, '1.0', '<p>Terms.</p>');
    await addLocale(code, id, 'th', '<p>ข้อกำหนด</p>');
    const th = await t.db
      .selectFrom('template_versions')
      .select('id')
      .where('release_id', '=', id)
      .where('locale', '=', 'th')
      .executeTakeFirstOrThrow();
    expect((await admin.get(versionPath(code, th.id))).statusCode).toBe(404);
    expect((await admin.get(`${versionPath(code, th.id)}/review`)).statusCode).toBe(404);
    await admin.get(`${versionPath(code, id)}/review`);
    expect((await admin.post(`${versionPath(code, th.id)}/submit`, {})).statusCode).toBe(404);
    const statuses = await t.db
      .selectFrom('template_versions')
      .select('status')
      .where('release_id', '=', id)
      .execute();
    expect(statuses).toEqual([{ status: 'draft' }, { status: 'draft' }]);
  });

  it('a locale is removed from a draft after the box is ticked; audited', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const id = await draft(code, '1.0', '<p>Terms.</p>');
    await addLocale(code, id, 'de', '<p>Bedingungen.</p>');
    await admin.get(`${versionPath(code, id)}?locale=de`);
    const unconfirmed = await admin.post(`${versionPath(code, id)}/locales/de/remove`, {});
    expect(unconfirmed.statusCode).toBe(400);
    await admin.get(`${versionPath(code, id)}?locale=de`);
    const removed = await admin.post(`${versionPath(code, id)}/locales/de/remove`, {
      confirm: 'true',
    });
    expect(removed.headers.location).toBe(`${versionPath(code, id)}?notice=locale_removed`);
    const left = await t.db
      .selectFrom('template_versions')
      .select('locale')
      .where('release_id', '=', id)
      .execute();
    expect(left).toEqual([{ locale: 'en' }]);
    expect(JSON.parse(String((await audit('version.locale_removed'))?.details))).toEqual({
      version_id: id,
      locale: 'de',
    });
  });
});
