/**
 * Systems and their banner configurations: origins in their one form, a configuration's content
 * checked and put in order, its fingerprint (what asks a visitor again), and the same review as
 * consent texts: draft, review, approval under four eyes, publish one at a time per system.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bannerConfig,
  changeConfiguration,
  changeSystem,
  checkContent,
  configurationSteps,
  createConfiguration,
  createSystem,
  defaultContent,
  type Editor,
  fingerprintOf,
  getConfiguration,
  getSystem,
  publishConfiguration,
  type ReviewMove,
  reviewConfiguration,
  unpublishConfiguration,
} from '../../src/cookies/index.js';
import type { Trx } from '../../src/platform/db.js';
import { AppError } from '../../src/platform/errors.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { cliEditor } from '../helpers/cookies.js';
import { seedTenant, unique } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';

/** The error an act throws, as its kind, message and fields. */
async function refusal(act: Promise<unknown>) {
  try {
    await act;
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return {
      kind: error.kind,
      message: error.message,
      fields: error.details?.map((d) => d.field) ?? [],
    };
  }
  throw new Error('the act was not refused');
}

describe('a configuration’s content', () => {
  it('is put in its one form: necessary first and required, the standard four in order, the tenant’s own last', () => {
    const content = defaultContent(['loyalty', 'marketing', 'analytics']);
    const checked = checkContent({
      ...content,
      categories: [...content.categories].reverse(),
      default_locale: 'EN',
    });
    expect(checked.categories.map((c) => [c.key, c.required])).toEqual([
      ['necessary', true],
      ['analytics', false],
      ['marketing', false],
      ['loyalty', false],
    ]);
    expect(checked.default_locale).toBe('en');
  });

  it.each([
    [
      ['analytics', 'marketing', 'personalization'],
      'Your browser sends Global Privacy Control, so marketing and personalization cookies start off.',
      'เบราว์เซอร์ของคุณส่งสัญญาณ Global Privacy Control เราจึงปิดคุกกี้เพื่อการตลาดและคุกกี้เพื่อปรับเนื้อหาให้เหมาะกับคุณไว้ก่อน',
    ],
    [
      ['analytics', 'marketing'],
      'Your browser sends Global Privacy Control, so marketing cookies start off.',
      'เบราว์เซอร์ของคุณส่งสัญญาณ Global Privacy Control เราจึงปิดคุกกี้เพื่อการตลาดไว้ก่อน',
    ],
    [
      ['personalization'],
      'Your browser sends Global Privacy Control, so personalization cookies start off.',
      'เบราว์เซอร์ของคุณส่งสัญญาณ Global Privacy Control เราจึงปิดคุกกี้เพื่อปรับเนื้อหาให้เหมาะกับคุณไว้ก่อน',
    ],
  ])(
    'with %j, its default GPC note names only the categories GPC turns off that it has',
    (categories, en, th) => {
      const { texts } = defaultContent(categories);
      expect([texts.en?.gpc_note, texts.th?.gpc_note]).toEqual([en, th]);
    },
  );

  it('has a fingerprint of its categories and their required flags alone', () => {
    const base = checkContent(defaultContent(['analytics']));
    // SHA-256 of [["analytics",false],["necessary",true]], its first 16 hex digits (sha256sum).
    expect(fingerprintOf(base)).toBe('2638992dff59e6ee');
    const retitled = { ...base, texts: { ...base.texts, en: { ...base.texts.en, title: 'New' } } };
    expect(fingerprintOf(checkContent(retitled as never))).toBe('2638992dff59e6ee');
    const longer = { ...base, lifetime_days: 30 };
    expect(fingerprintOf(checkContent(longer))).toBe('2638992dff59e6ee');
    const added = checkContent(defaultContent(['analytics', 'marketing']));
    expect(fingerprintOf(added)).not.toBe('2638992dff59e6ee');
    const required = {
      ...base,
      categories: base.categories.map((c) => ({ ...c, required: true })),
    };
    expect(fingerprintOf(checkContent(required))).not.toBe('2638992dff59e6ee');
  });

  it('keeps an own category’s mapping and each category’s cookies; the mapping is in the fingerprint, the cookies are not', () => {
    const base = checkContent(defaultContent(['loyalty']));
    const loyalty = base.categories.findIndex((c) => c.key === 'loyalty');
    const mapped = structuredClone(base);
    Object.assign(mapped.categories[loyalty] ?? {}, {
      maps_to: 'functional',
      cookies: [{ name: 'loyalty_id' }, { name: '_lp_*', domain: '.shop.example', path: '/' }],
    });
    const checked = checkContent(mapped);
    expect(checked.categories.find((c) => c.key === 'loyalty')).toMatchObject({
      maps_to: 'functional',
      cookies: [{ name: 'loyalty_id' }, { name: '_lp_*', domain: '.shop.example', path: '/' }],
    });
    // SHA-256 of [["loyalty",false,"functional"],["necessary",true]], first 16 hex digits.
    expect(fingerprintOf(checked)).toBe('3ab000ec45686f64');
    const cookiesOnly = structuredClone(base);
    Object.assign(cookiesOnly.categories[loyalty] ?? {}, { cookies: [{ name: 'loyalty_id' }] });
    expect(fingerprintOf(checkContent(cookiesOnly))).toBe(fingerprintOf(base));
  });

  it.each<[string, (c: ReturnType<typeof defaultContent>) => unknown, string]>([
    ['no necessary category', (c) => ({ ...c, categories: c.categories.slice(1) }), 'categories'],
    [
      'a category twice',
      (c) => ({ ...c, categories: [...c.categories, c.categories[1]] }),
      'categories.2.key',
    ],
    ['a default locale without texts', (c) => ({ ...c, default_locale: 'fr' }), 'default_locale'],
    [
      'a locale of the banner a category has no texts for',
      (c) => ({ ...c, texts: { ...c.texts, de: c.texts.en } }),
      'categories.0.texts',
    ],
    [
      'a category key that is not lower-case',
      (c) => ({ ...c, categories: [...c.categories, { ...c.categories[1], key: 'Ads' }] }),
      'categories.2.key',
    ],
    [
      'a colour that is not #rrggbb',
      (c) => ({ ...c, layout: { ...c.layout, colors: { ...c.layout.colors, accent: 'red' } } }),
      'layout.colors.accent',
    ],
    ['a lifetime over two years', (c) => ({ ...c, lifetime_days: 731 }), 'lifetime_days'],
    [
      'a standard category mapped onto another',
      (c) => ({
        ...c,
        categories: c.categories.map((x) =>
          x.key === 'analytics' ? { ...x, maps_to: 'marketing' } : x,
        ),
      }),
      'categories.1.maps_to',
    ],
    [
      'a cookie’s purpose in a locale the banner has not',
      (c) => ({
        ...c,
        categories: c.categories.map((x) =>
          x.key === 'analytics'
            ? { ...x, cookies: [{ name: '_ga', purpose: { en: 'Counts visits', de: 'Zählt' } }] }
            : x,
        ),
      }),
      'categories.1.cookies.0.purpose',
    ],
    [
      'a cookie name with a space',
      (c) => ({
        ...c,
        categories: c.categories.map((x) =>
          x.key === 'analytics' ? { ...x, cookies: [{ name: '_g a' }] } : x,
        ),
      }),
      'categories.1.cookies.0.name',
    ],
    [
      'a policy link that is no http(s) URL',
      (c) => ({
        ...c,
        texts: { ...c.texts, en: { ...c.texts.en, policy_url: 'javascript:alert(1)' } },
      }),
      'texts.en.policy_url',
    ],
  ])('refuses %s: 400 1001 naming the field', async (_name, change, field) => {
    const result = await refusal(
      Promise.resolve().then(() => checkContent(change(defaultContent(['analytics'])))),
    );
    expect(result.kind).toBe('invalidRequest');
    expect(result.fields).toContain(field);
  });

  it('declares each category’s cookies (who, how long, what for, by locale); the banner is given only those it may remove', () => {
    const content = defaultContent(['analytics']);
    const declared = checkContent({
      ...content,
      texts: { ...content.texts },
      categories: content.categories.map((x) =>
        x.key === 'necessary'
          ? { ...x, cookies: [{ name: 'session', provider: 'Tea shop', retention: 'Session' }] }
          : {
              ...x,
              cookies: [
                {
                  name: '_ga',
                  domain: '.shop.example',
                  provider: 'Google',
                  retention: '2 years',
                  purpose: { EN: 'Tells visitors apart', th: 'แยกผู้เข้าชม' },
                },
              ],
            },
      ),
    });
    expect(declared.categories.map((c) => c.cookies)).toEqual([
      [{ name: 'session', provider: 'Tea shop', retention: 'Session' }],
      [
        {
          name: '_ga',
          domain: '.shop.example',
          provider: 'Google',
          retention: '2 years',
          purpose: { en: 'Tells visitors apart', th: 'แยกผู้เข้าชม' },
        },
      ],
    ]);
    // A declaration changes no fingerprint: nobody is asked again for it.
    expect(fingerprintOf(declared)).toBe(fingerprintOf(checkContent(content)));
    const banner = bannerConfig(declared, {
      scope: 'cs_00000000000000000000',
      decisions_url: '',
      configuration: { id: 'x', version: 1, fingerprint: 'f' },
      gpc: false,
    });
    expect(banner.categories.map((c) => c.cookies)).toEqual([
      undefined,
      [{ name: '_ga', domain: '.shop.example' }],
    ]);
  });
});

describe.each(stores)('systems and configurations on $name', (store) => {
  let t: TestApp;
  let tenantId: string;
  // Each operator by name, with a user id of their own (a UUID, as the service's are).
  const userIds = new Map<string, string>();
  const user = (name: string): Editor => {
    const userId = userIds.get(name) ?? randomUUID();
    userIds.set(name, userId);
    return { ...cliEditor(tenantId), actor: name, userId };
  };

  beforeAll(async () => {
    t = await startTestApp(store);
    tenantId = (await seedTenant(t.db)).tenant.id;
  });
  afterAll(async () => t.close());

  const newSystem = (origins = ['https://www.bank.example']) =>
    t.db
      .transaction()
      .execute((trx) =>
        createSystem(trx, tenantId, { name: unique('site'), origins }, cliEditor(tenantId)),
      );

  it('keeps origins in their one form, once each, and gives the system a public scope', async () => {
    const system = await newSystem([
      'https://www.bank.example',
      'https://www.bank.example/',
      'http://localhost:8080',
    ]);
    expect(system.origins).toEqual(['https://www.bank.example', 'http://localhost:8080']);
    expect(system.scope).toMatch(/^cs_[0-9a-f]{20}$/);
  });

  it.each([
    ['a path', 'https://www.bank.example/shop'],
    ['another scheme', 'ftp://www.bank.example'],
    ['no scheme', 'www.bank.example'],
    ['a query', 'https://www.bank.example?x=1'],
  ])('refuses an origin with %s: 400 1001 naming it', async (_name, origin) => {
    const result = await refusal(newSystem([origin]));
    expect(result).toMatchObject({ kind: 'invalidRequest', fields: ['origins.0'] });
  });

  it('refuses a second system of the same name (409) and renames one', async () => {
    const system = await newSystem();
    const clash = await refusal(
      t.db
        .transaction()
        .execute((trx) =>
          createSystem(
            trx,
            tenantId,
            { name: system.name, origins: ['https://a.example'] },
            cliEditor(tenantId),
          ),
        ),
    );
    expect(clash.kind).toBe('conflict');
    const renamed = await t.db
      .transaction()
      .execute((trx) =>
        changeSystem(trx, tenantId, system.scope, { name: unique('renamed') }, cliEditor(tenantId)),
      );
    expect(renamed.name).not.toBe(system.name);
    expect(renamed.scope).toBe(system.scope);
  });

  it('bars whoever made a configuration from passing it, though another submitted it, and says so', async () => {
    const system = await newSystem();
    const tx = <T>(work: (trx: Trx) => Promise<T>) => t.db.transaction().execute(work);
    const made = await tx((trx) =>
      createConfiguration(
        trx,
        tenantId,
        { system: system.scope, name: 'Banner', categories: ['analytics'] },
        user('maker'),
      ),
    );
    await tx((trx) => reviewConfiguration(trx, tenantId, made.id, 'submit', user('submitter')));
    const pass = tx((trx) => reviewConfiguration(trx, tenantId, made.id, 'pass', user('maker')));
    expect(await refusal(pass)).toMatchObject({
      kind: 'forbidden',
      message: 'Four eyes: you made or changed it, so someone else must review it.',
    });
  });

  it('takes a configuration from draft through review and approval under four eyes, then publishes it', async () => {
    const system = await newSystem();
    const tx = <T>(work: (trx: Trx) => Promise<T>) => t.db.transaction().execute(work);
    const made = await tx((trx) =>
      createConfiguration(
        trx,
        tenantId,
        { system: system.scope, name: 'Banner', categories: ['analytics'] },
        user('writer'),
      ),
    );
    expect(made).toMatchObject({ status: 'draft', version: 1, published: false });
    await tx((trx) =>
      changeConfiguration(trx, tenantId, made.id, { name: 'Banner 2026' }, user('writer')),
    );
    const move = (id: string, m: ReviewMove, who: string) =>
      tx((trx) => reviewConfiguration(trx, tenantId, id, m, user(who)));
    await move(made.id, 'submit', 'writer');
    // Four eyes (on by default): its writer may neither pass nor approve it.
    expect(await refusal(move(made.id, 'pass', 'writer'))).toMatchObject({
      kind: 'forbidden',
      message: 'Four eyes: you submitted this configuration, so someone else must review it.',
    });
    // It is no longer a draft: its text is frozen.
    expect(
      (
        await refusal(
          tx((trx) => changeConfiguration(trx, tenantId, made.id, { name: 'x' }, user('writer'))),
        )
      ).kind,
    ).toBe('conflict');
    await move(made.id, 'pass', 'reviewer');
    expect((await refusal(move(made.id, 'approve', 'writer'))).kind).toBe('forbidden');
    const approved = await move(made.id, 'approve', 'approver');
    expect(approved.status).toBe('approved');
    const published = await tx((trx) =>
      publishConfiguration(trx, tenantId, made.id, user('approver')),
    );
    expect(published.published).toBe(true);
    expect((await getSystem(t.db, tenantId, system.scope)).published_configuration_id).toBe(
      made.id,
    );
    const steps = await configurationSteps(t.db, tenantId, made.id);
    const by = (name: string) => user(name).userId;
    expect(steps.map((s) => [s.step, s.user_id])).toEqual([
      ['created', by('writer')],
      ['changed', by('writer')],
      ['submitted', by('writer')],
      ['passed', by('reviewer')],
      ['approved', by('approver')],
      ['published', by('approver')],
    ]);
    const audit = await t.db
      .selectFrom('audit_log')
      .select('action')
      .where('target', '=', made.id)
      .orderBy('created_at')
      .execute();
    expect(audit.map((a) => a.action)).toEqual([
      'cookie_configuration.created',
      'cookie_configuration.changed',
      'cookie_configuration.submitted',
      'cookie_configuration.passed',
      'cookie_configuration.approved',
      'cookie_configuration.published',
    ]);
  });

  it('refuses a step from the wrong status (409), and publishing what is not approved', async () => {
    const system = await newSystem();
    const made = await t.db
      .transaction()
      .execute((trx) =>
        createConfiguration(trx, tenantId, { system: system.scope, name: 'B' }, user('writer')),
      );
    const wrong = await refusal(
      t.db
        .transaction()
        .execute((trx) => reviewConfiguration(trx, tenantId, made.id, 'approve', user('a'))),
    );
    expect(wrong.kind).toBe('conflict');
    const early = await refusal(
      t.db.transaction().execute((trx) => publishConfiguration(trx, tenantId, made.id, user('a'))),
    );
    expect(early.kind).toBe('conflict');
  });

  it('keeps one configuration published per system: a new publish replaces it, and unpublish takes it off', async () => {
    const system = await newSystem();
    const approvedOne = async (name: string) => {
      const made = await t.db
        .transaction()
        .execute((trx) =>
          createConfiguration(trx, tenantId, { system: system.scope, name }, user('w')),
        );
      for (const [m, who] of [
        ['submit', 'w'],
        ['pass', 'r'],
        ['approve', 'a'],
      ] as const) {
        await t.db
          .transaction()
          .execute((trx) => reviewConfiguration(trx, tenantId, made.id, m, user(who)));
      }
      return t.db
        .transaction()
        .execute((trx) => publishConfiguration(trx, tenantId, made.id, user('a')));
    };
    const first = await approvedOne('First');
    const second = await approvedOne('Second');
    expect(second.version).toBe(2);
    expect((await getConfiguration(t.db, tenantId, first.id)).published).toBe(false);
    expect((await getConfiguration(t.db, tenantId, second.id)).published).toBe(true);
    await t.db
      .transaction()
      .execute((trx) => unpublishConfiguration(trx, tenantId, second.id, user('a')));
    expect((await getSystem(t.db, tenantId, system.scope)).published_configuration_id).toBeNull();
    const script = await t.app.inject({
      method: 'GET',
      url: `/cookies/v1/${system.scope}/banner.js`,
    });
    expect(script.statusCode).toBe(404);
  });
});
