/**
 * The customer's cookie choices on their own page, on both stores (docs/preference-centre.md):
 * under *Cookies on our websites*, per website of the tenant, their newest choice made while
 * signed in there (docs/cookies.md, "Signed-in visitors"), its date, and each category allowed
 * or refused, named as the banner named it, in English or Thai as the page is. Read-only. A
 * choice made without the customer's token is not theirs; a customer with none sees no section.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultContent } from '../../src/cookies/index.js';
import { getTenantSettings, setTenantSettings } from '../../src/tenants/service.js';
import { json, startTestApp, type TestApp } from '../helpers/app.js';
import {
  type Choice,
  mintCustomerToken,
  type PublishedSystem,
  postChoice,
  seedPublishedSystem,
} from '../helpers/cookies.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';

const request = { origin: 'https://www.bank.example', userAgent: 'Browser/1.0' };
const zone = 'Asia/Bangkok';

/** The names the test's banner gives its categories, in English and Thai. */
const names: Record<string, { en: string; th: string }> = {
  necessary: { en: 'Needed to work', th: 'จำเป็นต่อการทำงาน' },
  analytics: { en: 'Counting visits', th: 'นับการเข้าชม' },
  marketing: { en: 'Offers for you', th: 'ข้อเสนอสำหรับคุณ' },
};

/** A banner of `necessary`, `analytics` and `marketing`, named as `names` says. */
function namedContent() {
  const content = defaultContent(['analytics', 'marketing']);
  return {
    ...content,
    categories: content.categories.map((category) => {
      const named = names[category.key];
      if (!named) throw new Error(`no name for ${category.key}`);
      return {
        ...category,
        texts: {
          en: { name: named.en, description: '' },
          th: { name: named.th, description: '' },
        },
      };
    }),
  };
}

const categories = (...allowed: string[]) =>
  Object.fromEntries(
    ['necessary', 'analytics', 'marketing'].map((key) => [
      key,
      key === 'necessary' || allowed.includes(key),
    ]),
  );

describe.each(stores)('cookie choices on the preference centre on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let bank: PublishedSystem;
  let loans: PublishedSystem;

  beforeAll(async () => {
    t = await startTestApp(store, { LOG_INTEGRATE_INTERVAL_MS: '60000' });
    a = await seedTenant(t.db);
    await setTenantSettings(t.db, a.tenant.id, {
      ...(await getTenantSettings(t.db, a.tenant.id)),
      timeZone: zone,
    });
    const content = namedContent();
    bank = await seedPublishedSystem(t.db, a.tenant.id, { name: 'Bank website', content });
    loans = await seedPublishedSystem(t.db, a.tenant.id, { name: 'Loans website', content });
  });
  afterAll(() => t?.close());

  const choose = async (
    site: PublishedSystem,
    method: Choice['method'],
    chosen: Record<string, boolean>,
    customer?: string,
  ) => {
    const token =
      customer === undefined
        ? undefined
        : (await mintCustomerToken(t.app, a.headers, customer)).token;
    const made = await postChoice(
      t.app,
      site,
      {
        visitorId: randomUUID(),
        method,
        categories: chosen,
        locale: 'en',
        ...(token === undefined ? {} : { customerToken: token }),
      },
      request,
    );
    return { ...made, chosen };
  };
  /** The customer's page, through a link their session opens in `locale`. */
  const pageOf = async (customer: string, locale: 'en' | 'th' = 'en') => {
    const link = await t.app.inject({
      method: 'POST',
      url: `/api/v1/customers/${encodeURIComponent(customer)}/preference-links`,
      headers: { ...a.headers, 'content-type': 'application/json' },
      payload: JSON.stringify({ locale }),
    });
    expect(link.statusCode, link.body).toBe(201);
    const url = new URL(json(link).data.url);
    const opened = await t.app.inject({ method: 'GET', url: `${url.pathname}${url.search}` });
    expect(opened.statusCode).toBe(303);
    const set = opened.headers['set-cookie'];
    const cookie = String(Array.isArray(set) ? set[0] : set).split(';')[0] as string;
    const page = await t.app.inject({
      method: 'GET',
      url: `/preferences/${a.tenant.alias}`,
      headers: { cookie },
    });
    expect(page.statusCode).toBe(200);
    return page.body;
  };
  const sectionOf = (body: string) =>
    /<section aria-labelledby="cookies-title">[\s\S]*?<\/section>/.exec(body)?.[0];
  /** Each website's panel as the customer reads it: name, when, and each category's state. */
  const panelsOf = (section: string) =>
    [...section.matchAll(/<div class="panel">([\s\S]*?)<\/table><\/div>/g)].map((m) => {
      const panel = m[1] ?? '';
      return {
        site: /<h3[^>]*>([^<]*)<\/h3>/.exec(panel)?.[1],
        at: /<time datetime="([^"]+)">([^<]*)<\/time>/.exec(panel)?.slice(1, 3),
        categories: [
          ...panel.matchAll(/<th scope="row">([^<]*)<\/th><td><span class="tag[^"]*">([^<]*)</g),
        ].map((c) => `${c[1]}: ${c[2]}`),
      };
    });
  /** A panel as the test expects it, from the choice it made, in the page's locale. */
  const expectedPanel = (
    site: string,
    made: { decided_at: string; chosen: Record<string, boolean> },
    locale: 'en' | 'th',
  ) => ({
    site,
    at: [
      made.decided_at,
      new Intl.DateTimeFormat(locale, {
        dateStyle: 'long',
        timeStyle: 'short',
        timeZone: zone,
      }).format(new Date(made.decided_at)),
    ],
    categories: Object.entries(made.chosen).map(([key, allowed]) => {
      const state = { en: ['Refused', 'Allowed'], th: ['ปฏิเสธ', 'อนุญาต'] }[locale];
      return `${names[key]?.[locale]}: ${state[allowed ? 1 : 0]}`;
    }),
  });

  it('shows, per website, the newest choice made while signed in: its date and each category allowed or refused', async () => {
    const customer = 'ploy.page-3b90@example.test';
    await choose(bank, 'reject-all', categories(), customer);
    const onLoans = await choose(
      loans,
      'accept-all',
      categories('analytics', 'marketing'),
      customer,
    );
    const onBank = await choose(bank, 'custom', categories('analytics'), customer);
    // Newer, but made without the customer's token: the visitor's alone.
    await choose(loans, 'reject-all', categories());

    const body = await pageOf(customer);
    const section = sectionOf(body);
    expect(section, 'the section').toBeDefined();
    expect(section).toContain('<h2 id="cookies-title">Cookies on our websites</h2>');
    expect(panelsOf(section ?? '')).toEqual([
      expectedPanel('Bank website', onBank, 'en'),
      expectedPanel('Loans website', onLoans, 'en'),
    ]);
    // Read-only: the section has no form of its own.
    expect(section).not.toContain('<form');
  });

  it('in Thai on a Thai page: the heading, the categories’ Thai names and their states', async () => {
    const customer = 'somchai.page-3b90@example.test';
    const made = await choose(loans, 'custom', categories('marketing'), customer);
    const section = sectionOf(await pageOf(customer, 'th')) ?? '';
    expect(section).toContain('<h2 id="cookies-title">คุกกี้บนเว็บไซต์ของเรา</h2>');
    expect(panelsOf(section)).toEqual([expectedPanel('Loans website', made, 'th')]);
  });

  it('a website whose newest choice is older than a page of the others’ is still shown', async () => {
    const customer = 'malee.page-3b90@example.test';
    const onLoans = await choose(loans, 'reject-all', categories(), customer);
    let onBank = onLoans;
    for (let i = 0; i < 50; i += 1) {
      onBank = await choose(
        bank,
        'custom',
        categories(i % 2 ? 'analytics' : 'marketing'),
        customer,
      );
    }
    const section = sectionOf(await pageOf(customer)) ?? '';
    expect(panelsOf(section)).toEqual([
      expectedPanel('Bank website', onBank, 'en'),
      expectedPanel('Loans website', onLoans, 'en'),
    ]);
  });

  it('a customer with no choice made while signed in sees no section', async () => {
    const customer = 'kanya.page-3b90@example.test';
    // A token minted for them, but the banner was not given it.
    await mintCustomerToken(t.app, a.headers, customer);
    await choose(bank, 'accept-all', categories('analytics', 'marketing'));
    for (const locale of ['en', 'th'] as const) {
      const body = await pageOf(customer, locale);
      expect(body).not.toContain('cookies-title');
      expect(body).not.toContain(locale === 'en' ? 'Cookies on our websites' : 'คุกกี้บนเว็บไซต์ของเรา');
    }
  });
});
