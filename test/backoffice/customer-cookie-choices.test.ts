/**
 * A customer's cookie choices made while signed in, on their page in the back-office, on both
 * stores (docs/backoffice.md, *Customers*): newest first, in the tenant's time zone, with the
 * system's name, how the choice was made and each category granted or denied; each linked to
 * the cookie decisions' list filtered to it for whoever may open that list (`cookies:view`),
 * unlinked for the rest of those who see the page (`customers:view`). A visitor's choice made
 * without the customer's token, and another customer's, are not theirs. The 50 newest are
 * shown, and the page says when there are more. A customer with none is told so in a sentence.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../../src/accounts/users.js';
import { hashPassword } from '../../src/tenants/passwords.js';
import { getTenantSettings, setTenantSettings } from '../../src/tenants/service.js';
import { apiOf } from '../helpers/api.js';
import type { TestApp } from '../helpers/app.js';
import {
  type Choice,
  mintCustomerToken,
  type PublishedSystem,
  postChoice,
  seedPublishedSystem,
} from '../helpers/cookies.js';
import { type SeededTenant, seedPublishedVersion, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { testPasswordHashCost } from '../helpers/time.js';
import {
  type PageClient,
  signedIn,
  startBackofficeApp,
  tenantPassword,
  textOf,
} from './support.js';

const request = { origin: 'https://www.bank.example', userAgent: 'Browser/1.0' };
const heading = '<h2>Cookie choices made while signed in</h2>';
const none = 'No cookie choice was made while signed in as this customer.';

/** Every category of a published system, each granted or not as `granted` says. */
const categories = (...granted: string[]) =>
  Object.fromEntries(
    ['necessary', 'analytics', 'marketing', 'functional', 'personalization'].map((key) => [
      key,
      key === 'necessary' || granted.includes(key),
    ]),
  );

/** An instant as the page shows it in Asia/Bangkok, seven hours ahead of UTC all year. */
const inBangkok = (iso: string) => {
  const shifted = new Date(Date.parse(iso) + 7 * 3_600_000).toISOString();
  return `${shifted.slice(0, 10)} ${shifted.slice(11, 19)} GMT+7`;
};

describe.each(stores)(
  "a customer's signed-in cookie choices in the back-office on $name",
  (store) => {
    let t: TestApp;
    let a: SeededTenant;
    let bank: PublishedSystem;
    let loans: PublishedSystem;
    let admin: PageClient;
    let service: PageClient;

    beforeAll(async () => {
      t = await startBackofficeApp(store, { LOG_INTEGRATE_INTERVAL_MS: '60000' });
      a = await seedTenant(t.db);
      await setTenantSettings(t.db, a.tenant.id, {
        ...(await getTenantSettings(t.db, a.tenant.id)),
        timeZone: 'Asia/Bangkok',
      });
      bank = await seedPublishedSystem(t.db, a.tenant.id, { name: 'Bank website' });
      loans = await seedPublishedSystem(t.db, a.tenant.id, { name: 'Loans website' });
      const passwordHash = await hashPassword(tenantPassword, testPasswordHashCost);
      await t.db.transaction().execute((trx) =>
        addUser(trx, a.tenant.id, {
          email: `service-${a.tenant.alias}@example.test`,
          name: 'The service desk',
          roles: ['customer_service'],
          passwordHash,
        }),
      );
      admin = await signedIn(t.app, a.tenant.email);
      service = await signedIn(t.app, `service-${a.tenant.alias}@example.test`);
    });
    afterAll(() => t?.close());

    const choose = async (
      site: PublishedSystem,
      method: Choice['method'],
      chosen: Record<string, boolean>,
      customerToken?: string,
    ) => {
      const made = await postChoice(
        t.app,
        site,
        {
          visitorId: randomUUID(),
          method,
          categories: chosen,
          locale: 'en',
          ...(customerToken === undefined ? {} : { customerToken }),
        },
        request,
      );
      return { ...made, method, chosen };
    };
    const tokenOf = async (customer: string) =>
      (await mintCustomerToken(t.app, a.headers, customer)).token;
    const pageOf = (client: PageClient, customer: string) =>
      client.get(`/backoffice/customers?customer_id=${encodeURIComponent(customer)}`);
    /** The section's HTML: from its heading to the next section's, or to the end of the page's main. */
    const sectionOf = (body: string) => {
      const start = body.indexOf(heading);
      if (start < 0) return undefined;
      const ends = ['<h2>', '</main>'].map((end) => body.indexOf(end, start + heading.length));
      return body.slice(start, Math.min(...ends.filter((end) => end >= 0)));
    };
    const rowsOf = (section: string) =>
      [...section.matchAll(/<tr>\n([\s\S]*?)<\/tr>/g)].map((m) => m[1] ?? '');
    const shown = (row: string) => textOf(row).trim();
    /** A row as the test expects it, from the choice it made: when, system, how, categories. */
    const expectedRow = (
      made: { decided_at: string; chosen: Record<string, boolean> },
      system: string,
      how: string,
    ) =>
      [
        inBangkok(made.decided_at),
        system,
        how,
        Object.entries(made.chosen)
          .map(([key, granted]) => `${key}: ${granted ? 'granted' : 'denied'}`)
          .join(' '),
      ].join(' ');

    it('lists the choices made with the customer’s token, newest first, in the tenant’s zone, each linked to its cookie decision', async () => {
      const customer = 'ploy.cookies-7c21@example.test';
      const token = await tokenOf(customer);
      const first = await choose(bank, 'reject-all', categories(), token);
      const second = await choose(loans, 'custom', categories('analytics', 'functional'), token);
      // Neither a choice made without the token nor another customer's is theirs.
      await choose(bank, 'custom', categories('analytics', 'marketing', 'functional'));
      await choose(loans, 'custom', categories('analytics'), await tokenOf('someone-else-7c21'));
      const third = await choose(
        bank,
        'accept-all',
        categories('analytics', 'marketing', 'functional', 'personalization'),
        token,
      );

      const page = await pageOf(admin, customer);
      expect(page.statusCode).toBe(200);
      const section = sectionOf(page.body);
      expect(section, 'the section').toBeDefined();
      const rows = rowsOf(section ?? '');
      expect(rows.map(shown)).toEqual([
        expectedRow(third, 'Bank website', 'Accept all'),
        expectedRow(second, 'Loans website', 'Custom'),
        expectedRow(first, 'Bank website', 'Reject all'),
      ]);
      const links = rows.map(
        (row) => /<a href="([^"]+)">/.exec(row)?.[1]?.replace(/&amp;/g, '&') ?? '',
      );
      expect(links).toEqual(
        [third, second, first].map(
          (made) => `/backoffice/cookies/decisions?decision=${made.decision_id}`,
        ),
      );
      // The link opens the cookie decisions' list with that choice alone, its receipt's id on it.
      const opened = await admin.get(links[1] ?? '');
      expect(opened.statusCode).toBe(200);
      expect(
        [...opened.body.matchAll(/\/cookies\/decisions\/([0-9a-f-]{36})\/receipt/g)].map(
          (m) => m[1],
        ),
      ).toEqual([second.decision_id]);
      expect(textOf(section ?? '')).not.toContain('most recent choices are shown');
      // Known by these choices alone, the customer has an evidence pack to download.
      expect(page.body).toContain('No decision recorded');
      expect(page.body).toContain('Download evidence pack');
    });

    it('a user who sees the customer but not the cookie pages sees the same choices, unlinked', async () => {
      const customer = 'niran.cookies-7c21@example.test';
      const made = await choose(loans, 'custom', categories('marketing'), await tokenOf(customer));
      const page = await pageOf(service, customer);
      expect(page.statusCode).toBe(200);
      const section = sectionOf(page.body) ?? '';
      expect(rowsOf(section).map(shown)).toEqual([expectedRow(made, 'Loans website', 'Custom')]);
      expect(section).not.toContain('<a ');
    });

    it('a customer with no choice made while signed in is told so, whether the tenant has other records of them or none', async () => {
      const decided = 'kanya.decisions-7c21';
      const version = await seedPublishedVersion(t.db, a.tenant.id);
      const given = await apiOf(t.app, a.headers).decide(decided, version.id, 'given');
      expect(given.statusCode, given.body).toBe(201);
      // A token minted for them, but the banner was not given it.
      await tokenOf(decided);
      await choose(bank, 'custom', categories('analytics'));
      for (const customer of [decided, 'never.seen-7c21@example.test']) {
        const page = await pageOf(admin, customer);
        expect(page.statusCode).toBe(200);
        const section = sectionOf(page.body);
        expect(textOf(section ?? '').trim()).toBe(`Cookie choices made while signed in ${none}`);
      }
      // The customer's decisions are still shown above it, as before.
      expect(textOf((await pageOf(admin, decided)).body)).toContain('Templates');
      // A customer the tenant knows nothing of has no pack to offer.
      expect((await pageOf(admin, 'never.seen-7c21@example.test')).body).not.toContain(
        'Download evidence pack',
      );
    });

    it('shows the 50 newest of more, and says there are more', async () => {
      const customer = 'malee.many-7c21@example.test';
      const token = await tokenOf(customer);
      const made: { decided_at: string; chosen: Record<string, boolean> }[] = [];
      for (let i = 0; i < 51; i += 1) {
        made.push(
          await choose(bank, 'custom', categories(i % 2 === 0 ? 'analytics' : 'marketing'), token),
        );
      }
      const section = sectionOf((await pageOf(admin, customer)).body) ?? '';
      expect(textOf(section)).toContain(
        'The 50 most recent choices are shown; the evidence pack has them all.',
      );
      expect(rowsOf(section).map(shown)).toEqual(
        made
          .slice(1)
          .reverse()
          .map((m) => expectedRow(m, 'Bank website', 'Custom')),
      );
    });
  },
);
