import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishOutsideReview } from '../../src/templates/actions.js';
import { chooseLocale, localeRange, requestedLocales } from '../../src/templates/locales.js';
import { createTemplate } from '../../src/templates/service.js';
import { apiOf, withinPublishBound } from '../helpers/api.js';
import { expectErrorShape, json, startTestApp, type TestApp } from '../helpers/app.js';
import { type SeededTenant, seedTenant, unique } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { bothPaths } from '../helpers/two-paths.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('which locale a request gets (RFC 4647 lookup, then the default)', () => {
  it.each([
    [undefined, 'th-TH,en;q=0.5', ['th', 'en'], 'th'],
    [undefined, 'en-GB', ['th', 'en'], 'en'],
    [undefined, 'fr', ['th', 'en'], 'en'],
    [undefined, 'fr, th;q=0.5', ['th', 'en'], 'th'],
    [undefined, 'th;q=0, en', ['th', 'en'], 'en'],
    [undefined, 'EN-gb', ['en-GB', 'en'], 'en-GB'],
    [undefined, 'zh-Hant-TW', ['zh-Hant', 'en'], 'zh-Hant'],
    ['th', 'en', ['th', 'en'], 'th'],
    ['de', undefined, ['th', 'en'], 'en'],
    // The Android and Java form, `_` for `-`, in either place.
    ['th_TH', undefined, ['th', 'en'], 'th'],
    ['en_gb', undefined, ['en-GB', 'en'], 'en-GB'],
    [undefined, 'th_TH, en;q=0.5', ['th', 'en'], 'th'],
  ])('?locale=%s, Accept-Language %s, of %j: %s', (query, header, available, expected) => {
    expect(chooseLocale(requestedLocales(query, header), available, 'en')).toBe(expected);
  });

  it.each([undefined, '', '*', 'not a tag!'])('Accept-Language %j names no locale', (header) => {
    expect(requestedLocales(undefined, header)).toEqual([]);
  });

  it.each([
    ['th_TH', ['th-TH']],
    ['zh_Hant_TW', ['zh-Hant-TW']],
  ])('?locale=%j is read as the tag %j', (query, expected) => {
    expect(requestedLocales(query, undefined)).toEqual(expected);
  });

  it.each(['', 'not a tag!', 'e', 'x'.repeat(40), 'th__TH', 'th_'])(
    '?locale=%j is refused (400 1001)',
    (query) => {
      expect(() => requestedLocales(query, undefined)).toThrow(
        expect.objectContaining({ status: 400 }),
      );
    },
  );
});

describe('the texts a locale filter finds: those the API would answer it, and those under it', () => {
  it.each([
    ['th', ['th'], 'th'],
    ['th-TH', ['th-TH', 'th'], 'th-TH'],
    ['zh-Hant-TW', ['zh-Hant-TW', 'zh-Hant', 'zh'], 'zh-Hant-TW'],
    ['en-GB-x-bank', ['en-GB-x-bank', 'en-GB', 'en'], 'en-GB-x-bank'],
  ])('%s: the exact tag and its lookup prefixes %j, and what %s- begins', (tag, anyOf, under) => {
    expect(localeRange(tag)).toEqual({ anyOf, under });
  });

  it.each(['th', 'th-TH', 'zh-Hant-TW', 'en-GB-x-bank', 'sr-Latn-RS'])(
    'for %s the prefixes are exactly the texts the API chooses for it when that text alone is available',
    (tag) => {
      const candidates = ['th', 'th-TH', 'th-LA', 'zh', 'zh-Hant', 'zh-Hant-TW', 'zh-Hans', 'en'];
      const more = ['en-GB', 'en-GB-x-bank', 'sr', 'sr-Latn', 'sr-Latn-RS', 'sr-Cyrl'];
      for (const available of [...candidates, ...more]) {
        const chosen = chooseLocale([tag], [available], 'zxx') === available;
        expect(localeRange(tag).anyOf.includes(available), `${tag} / ${available}`).toBe(chosen);
      }
    },
  );
});

/**
 * A release in English (the default) and Thai: each variant its own consent_version_id, text and
 * hash; the API chooses one by `?locale=` or `Accept-Language`, and answers a request that names
 * none exactly as before locales existed.
 */
describe.each(stores)('a release in two locales on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let code: string;
  let en: { id: string; html: string };
  let th: { id: string; html: string };
  const publishedAt = { value: '' };

  const get = (url: string, headers: Record<string, string> = {}) =>
    bothPaths(t.app, url, { ...a.headers, ...headers });
  const latestUrl = () => `/api/v1/consent-templates/${code}/latest`;
  const pendingUrl = (customer: string) =>
    `/api/v1/customers/${customer}/consents/templates/${code}/pending`;

  beforeAll(async () => {
    t = await startTestApp(store);
    a = await seedTenant(t.db);
    code = unique('privacy');
    await t.db
      .transaction()
      .execute((trx) => createTemplate(trx, a.tenant.id, { code, name: 'Privacy', locale: 'en' }));
    const published = await t.db.transaction().execute((trx) =>
      publishOutsideReview(
        trx,
        {
          tenantId: a.tenant.id,
          actorKind: 'operator',
          actor: 'test',
          ip: 'local',
          userAgent: null,
        },
        a.tenant.id,
        code,
        {
          tag: '1.0',
          content_html: '<p>We keep your e-mail address.</p>',
          allow_reconsent: false,
        },
        { variants: [{ locale: 'th', content_html: '<p>เราเก็บที่อยู่อีเมลของคุณ</p>' }] },
      ),
    );
    const rows = await t.db
      .selectFrom('template_versions')
      .select(['id', 'locale', 'content_html', 'content_sha256', 'release_id', 'version'])
      .where('release_id', '=', published.id)
      .orderBy('locale')
      .execute();
    expect(rows.map((r) => [r.locale, r.version, r.release_id])).toEqual([
      ['en', 1, published.id],
      ['th', 1, published.id],
    ]);
    expect(rows.map((r) => r.content_sha256)).toEqual([
      sha256('<p>We keep your e-mail address.</p>'),
      sha256('<p>เราเก็บที่อยู่อีเมลของคุณ</p>'),
    ]);
    en = { id: published.id, html: '<p>We keep your e-mail address.</p>' };
    th = { id: rows[1]?.id ?? '', html: '<p>เราเก็บที่อยู่อีเมลของคุณ</p>' };
    expect(th.id).not.toBe(en.id);
    publishedAt.value = String(published.published_at);
  });
  afterAll(() => t?.close());

  /** V as contract section 4 has it, in its order. */
  const v = (variant: { id: string; html: string }) => ({
    consent_version_id: variant.id,
    template_code: code,
    version: 1,
    tag: '1.0',
    content_html: variant.html,
    file_url: `https://consent.test/api/content/${variant.id}.html`,
    allow_reconsent: false,
    published_at: publishedAt.value,
  });

  it('a request naming no locale gets the default locale exactly as before: no locale field, no Content-Language, no Vary', async () => {
    const response = await get(latestUrl());
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe(JSON.stringify({ data: v(en) }));
    expect(response.headers['content-language']).toBeUndefined();
    expect(response.headers.vary).toBeUndefined();
  });

  it.each([
    ['?locale=th', {}, 'th'],
    ['?locale=th-TH', {}, 'th'],
    ['', { 'accept-language': 'th-TH,th;q=0.9,en;q=0.8' }, 'th'],
    ['', { 'accept-language': 'en-GB' }, 'en'],
    ['?locale=de', {}, 'en'],
    ['', { 'accept-language': 'fr-FR' }, 'en'],
    ['?locale=en', { 'accept-language': 'th' }, 'en'],
    ['?locale=th_TH', {}, 'th'],
    ['?locale=en_GB', {}, 'en'],
    ['', { 'accept-language': 'th_TH,en;q=0.5' }, 'th'],
  ])(
    'latest%s with %j answers the %s variant, with locale, Content-Language and Vary',
    async (query, headers, locale) => {
      const response = await get(`${latestUrl()}${query}`, headers);
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe(
        JSON.stringify({ data: { ...v(locale === 'th' ? th : en), locale } }),
      );
      expect(response.headers['content-language']).toBe(locale);
      expect(response.headers.vary).toBe('Accept-Language');
    },
  );

  it('each variant has its own ETag; If-None-Match matches only its own', async () => {
    const plain = String((await get(latestUrl())).headers.etag);
    const thai = String((await get(`${latestUrl()}?locale=th`)).headers.etag);
    const english = String((await get(`${latestUrl()}?locale=en`)).headers.etag);
    expect(new Set([plain, thai, english]).size).toBe(3);
    expect((await get(`${latestUrl()}?locale=th`, { 'if-none-match': thai })).statusCode).toBe(304);
    expect((await get(`${latestUrl()}?locale=th`, { 'if-none-match': plain })).statusCode).toBe(
      200,
    );
    expect((await get(latestUrl(), { 'if-none-match': plain })).statusCode).toBe(304);
  });

  it('an invalid ?locale= is 400 1001 naming it; a locale the template lacks falls back', async () => {
    for (const bad of ['not%20a%20tag', '', '%2A']) {
      const response = await get(`${latestUrl()}?locale=${bad}`);
      expect(response.statusCode).toBe(400);
      expect(expectErrorShape(response)).toMatchObject({ code: '1001' });
      expect(json(response).details).toEqual([
        {
          field: 'querystring.locale',
          issue: 'must be a BCP 47 language tag, such as th or en-GB',
        },
      ]);
    }
    const pending = await get(`${pendingUrl('nobody')}?locale=bad_tag`);
    expect(pending.statusCode).toBe(400);
  });

  it('a malformed locale, by the one rule: ?locale= refused with the same bytes as ever, an Accept-Language entry skipped', async () => {
    const refused = await get(`${latestUrl()}?locale=th__TH`);
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toBe(
      '{"code":"1001","message":"Invalid request.","details":[{"field":"querystring.locale",' +
        '"issue":"must be a BCP 47 language tag, such as th or en-GB"}]}',
    );
    const plain = await get(latestUrl());
    for (const header of ['th__TH', 'not a tag!', 'th__TH;q=0.9, *']) {
      const skipped = await get(latestUrl(), { 'accept-language': header });
      expect(skipped.statusCode).toBe(200);
      expect(skipped.body).toBe(plain.body);
      expect(skipped.headers['content-language']).toBeUndefined();
    }
    // The entries that are tags still count, `_` read as `-` as in ?locale=.
    const mixed = await get(latestUrl(), { 'accept-language': 'th__TH, th_TH;q=0.5' });
    expect(json(mixed).data).toMatchObject({ consent_version_id: th.id, locale: 'th' });
  });

  it('a decision on the Thai variant names the Thai text and hash, and accepts the release in every locale', async () => {
    const api = apiOf(t.app, a.headers);
    const customer = unique('cus');
    const decided = await api.decide(customer, th.id, 'given');
    expect(decided.statusCode).toBe(201);
    expect(json(decided).data).toMatchObject({ consent_version_id: th.id, version: 1 });
    const row = await t.db
      .selectFrom('decisions as d')
      .innerJoin('template_versions as v', (j) =>
        j.onRef('v.tenant_id', '=', 'd.tenant_id').onRef('v.id', '=', 'd.consent_version_id'),
      )
      .select(['d.consent_version_id', 'v.content_sha256'])
      .where('d.id', '=', json(decided).data.decision_id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ consent_version_id: th.id, content_sha256: sha256(th.html) });

    const plain = await get(pendingUrl(customer));
    expect(plain.body).toBe(
      JSON.stringify({
        data: {
          accepted: true,
          consent_version: v(en),
          decision: 'given',
          decided_at: json(decided).data.decided_at,
        },
      }),
    );
    expect(plain.headers['content-language']).toBeUndefined();
    const thai = await get(`${pendingUrl(customer)}?locale=th`);
    expect(json(thai).data).toEqual({
      accepted: true,
      consent_version: { ...v(th), locale: 'th' },
      decision: 'given',
      decided_at: json(decided).data.decided_at,
    });
    expect(thai.headers['content-language']).toBe('th');
    expect(thai.headers.vary).toBe('Accept-Language');

    // Re-consent is not allowed on this release: the same decision in English changes nothing,
    // another is refused.
    const again = await api.decide(customer, en.id, 'given');
    expect(again.statusCode).toBe(200);
    expect(json(again).data.decision_id).toBe(json(decided).data.decision_id);
    const other = await api.decide(customer, en.id, 'reject');
    expect(other.statusCode).toBe(409);

    // As of now, and in the customer's look-up, they accepted the latest release.
    const asOf = await get(
      `/api/v1/customers/${customer}/consents/templates/${code}/as-of?at=${encodeURIComponent(new Date().toISOString())}`,
    );
    expect(json(asOf).data).toMatchObject({
      accepted: true,
      latest_version: { consent_version_id: en.id, version: 1, tag: '1.0' },
    });
    // The record names the locale of the text shown to a request that names a locale, and
    // stays as it was to one that does not.
    const plainHistory = json(await get(`/api/v1/customers/${customer}/consents`)).data;
    expect(Object.keys(plainHistory.history[0])).toEqual([
      'decision_id',
      'template_code',
      'consent_version_id',
      'version',
      'tag',
      'decision',
      'decided_at',
      'content_sha256',
    ]);
    expect(plainHistory.templates[0].last_decision).not.toHaveProperty('locale');
    const named = json(
      await get(`/api/v1/customers/${customer}/consents`, { 'accept-language': 'en' }),
    ).data;
    expect(named.history[0]).toMatchObject({ consent_version_id: th.id, locale: 'th' });
    expect(named.templates[0].last_decision).toMatchObject({ locale: 'th' });
    const asOfNamed = await get(
      `/api/v1/customers/${customer}/consents/templates/${code}/as-of?locale=en&at=${encodeURIComponent(new Date().toISOString())}`,
    );
    expect(json(asOfNamed).data.decision).toMatchObject({
      consent_version_id: th.id,
      locale: 'th',
    });
    expect(json(asOf).data.decision).not.toHaveProperty('locale');

    const lookUp = await get(`/api/v1/customers/${customer}/consents`);
    expect(json(lookUp).data.templates).toEqual([
      expect.objectContaining({
        template_code: code,
        latest_version: { consent_version_id: en.id, version: 1, tag: '1.0' },
        accepted: true,
        last_decision: expect.objectContaining({ consent_version_id: th.id, version: 1 }),
      }),
    ]);
  });

  it('a later release in English only makes them pending, and ?locale=th then falls back to English', async () => {
    const api = apiOf(t.app, a.headers);
    const customer = unique('cus');
    expect((await api.decide(customer, th.id, 'given')).statusCode).toBe(201);
    const next = await t.db.transaction().execute((trx) =>
      publishOutsideReview(
        trx,
        {
          tenantId: a.tenant.id,
          actorKind: 'operator',
          actor: 'test',
          ip: 'local',
          userAgent: null,
        },
        a.tenant.id,
        code,
        { tag: '2.0', content_html: '<p>Version two.</p>' },
      ),
    );
    const pending = await withinPublishBound(
      () => get(`${pendingUrl(customer)}?locale=th`),
      (r) => json(r).data.consent_version.version === 2,
    );
    expect(json(pending).data).toMatchObject({
      accepted: false,
      consent_version: { consent_version_id: next.id, locale: 'en' },
    });
    expect(pending.headers['content-language']).toBe('en');
  });
});
