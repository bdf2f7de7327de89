/**
 * Erasing a website visitor from the back-office (*Cookies, Decisions, Erase a visitor…*), as
 * `cookie visitor erase` does: the visitor id, a confirmation that says what will happen and
 * wants a box ticked, then the erasure and its count. Needs `customers:erase`; audited under the
 * visitor's random subject id with the signed-in user as the actor.
 */
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRole } from '../../src/accounts/roles.js';
import type { TestApp } from '../helpers/app.js';
import { type PublishedSystem, seedPublishedSystem } from '../helpers/cookies.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { choose, member, standardChoice } from './cookies-support.js';
import { type PageClient, signedIn, startBackofficeApp, textOf } from './support.js';

const start = '/backoffice/cookies/visitors/erase';
const confirmation = '/backoffice/cookies/visitors/erase/confirmation';
const erase = '/backoffice/cookies/visitors/erase';
const invalidId =
  'A visitor id is the UUID the banner keeps, such as 9b1e7c1a-8f0e-4a51-9a8c-0f4f7b2f6b11.';

describe.each(stores)('erasing a cookie visitor in the back-office on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let admin: PageClient;
  let site: PublishedSystem;

  beforeAll(async () => {
    t = await startBackofficeApp(store);
    a = await seedTenant(t.db);
    admin = await signedIn(t.app, a.tenant.email);
    site = await seedPublishedSystem(t.db, a.tenant.id);
  });
  afterAll(() => t?.close());

  /** The CSV rows of these choices: what the back-office still says of whose they were. */
  const exported = async (ids: readonly string[]) => {
    const csv = await admin.get(`/backoffice/cookies/decisions.csv?system=${site.scope}`);
    expect(csv.statusCode).toBe(200);
    const rows = parse(csv.body, { columns: true }) as Array<Record<string, string>>;
    return ids.map((id) => {
      const row = rows.find((r) => r.decision_id === id);
      return row && [row.visitor_id, row.ip, row.user_agent, row.method];
    });
  };

  const erasures = () =>
    t.db
      .selectFrom('audit_log')
      .select(['actor', 'actor_name', 'actor_kind', 'target', 'details', 'ip'])
      .where('tenant_id', '=', a.tenant.id)
      .where('action', '=', 'cookie_visitor.erased')
      .execute();

  /** Posts the first step's form from its page. */
  const ask = (page: PageClient, visitor: string) => page.submit(start, confirmation, { visitor });

  it('asks for the id, says what will happen, wants the box ticked, erases, says how many, and records who did it', async () => {
    const visitor = '5d0c6a3e-1f2b-4c8d-9e7f-a1b2c3d4e5f6';
    const other = '5d0c6a3e-1f2b-4c8d-9e7f-000000000002';
    const theirs = [
      await choose(t.app, site, 'accept-all', standardChoice(true), { visitor }),
      await choose(t.app, site, 'reject-all', standardChoice(false), {
        visitor: visitor.toUpperCase(),
      }),
    ];
    const kept = await choose(t.app, site, 'custom', standardChoice(false), { visitor: other });
    const { subject_id: subjectId } = await t.db
      .selectFrom('cookie_decisions')
      .select('subject_id')
      .where('id', '=', theirs[0] as string)
      .executeTakeFirstOrThrow();

    const list = await admin.get('/backoffice/cookies/decisions');
    expect(list.body).toContain(`href="${start}"`);
    expect(textOf(list.body)).toContain('Erase a visitor…');
    const first = await admin.get(start);
    expect(first.statusCode).toBe(200);
    expect(first.body).toContain(`action="${confirmation}"`);
    expect(textOf(first.body)).toContain('Consentrix.consent().visitor_id');

    // Typed in capitals, as the visitor may read it out: the banner's id is the same.
    const asked = await ask(admin, ` ${visitor.toUpperCase()} `);
    expect(asked.statusCode).toBe(200);
    const said = textOf(asked.body).replace(/\s+/g, ' ');
    expect(said).toContain(`Erase visitor ${visitor}?`);
    expect(said).toContain('The tenant keeps 2 cookie choices of this visitor.');
    expect(said).toContain(
      'the visitor id, the address and the user agent kept with each of their cookie choices can never be read again',
    );
    expect(said).toContain(
      'each keeps its leaf in the decision log, and its receipt still verifies',
    );
    expect(said).toContain('This cannot be undone.');
    expect(asked.body).toContain(`<input type="hidden" name="visitor" value="${visitor}">`);

    // The box left unticked erases nothing.
    const unticked = await admin.post(erase, { visitor });
    expect(unticked.statusCode).toBe(400);
    expect(textOf(unticked.body)).toContain('Tick the box to confirm the erasure.');
    expect(await exported(theirs)).toEqual([
      [visitor, '203.0.113.0', 'Browser/1.0', 'accept-all'],
      [visitor, '203.0.113.0', 'Browser/1.0', 'reject-all'],
    ]);

    await ask(admin, visitor);
    const erased = await admin.post(erase, { visitor, confirm: 'true' });
    expect(erased.statusCode).toBe(200);
    const done = textOf(erased.body).replace(/\s+/g, ' ');
    expect(done).toContain(
      `Visitor ${visitor} was erased: 2 cookie choices keep their leaves in the decision log and their receipts, without the visitor id, address or user agent.`,
    );
    expect(done).toContain(subjectId);

    // The choices stay, listed and exported, with nothing left of whose they were.
    expect(await exported(theirs)).toEqual([
      ['', '', '', 'accept-all'],
      ['', '', '', 'reject-all'],
    ]);
    expect(await exported([kept])).toEqual([[other, '203.0.113.0', 'Browser/1.0', 'custom']]);
    const listed = await admin.get('/backoffice/cookies/decisions');
    expect([...listed.body.matchAll(/<time datetime=/g)]).toHaveLength(3);
    expect(listed.body).not.toContain(visitor);
    expect(await erasures()).toEqual([
      {
        actor: a.tenant.email,
        // The name registering a tenant gives its first admin.
        actor_name: 'Administrator',
        actor_kind: 'tenant',
        target: subjectId,
        details: JSON.stringify({ cookie_decisions: 2 }),
        ip: '127.0.0.1',
      },
    ]);

    // Nothing is left to erase: asked again, the page says so and nothing more is recorded.
    const again = await ask(admin, visitor);
    expect(again.statusCode).toBe(200);
    expect(textOf(again.body)).toContain(
      `No cookie choice of visitor ${visitor} is kept: there is nothing to erase.`,
    );
    expect(again.body).not.toContain(`action="${erase}"`);
  });

  it('a visitor with no choice kept: both steps say there is nothing to erase, and nothing is audited', async () => {
    const before = (await erasures()).length;
    const never = '0f0e0d0c-0b0a-4908-8706-050403020100';
    const asked = await ask(admin, never);
    expect(asked.statusCode).toBe(200);
    const message = `No cookie choice of visitor ${never} is kept: there is nothing to erase.`;
    expect(textOf(asked.body)).toContain(message);
    await admin.get(start);
    const posted = await admin.post(erase, { visitor: never, confirm: 'true' });
    expect(posted.statusCode).toBe(200);
    expect(textOf(posted.body)).toContain(message);
    expect(await erasures()).toHaveLength(before);
  });

  it.each([
    ['a word', 'someone'],
    ['a UUID one digit short', '5d0c6a3e-1f2b-4c8d-9e7f-a1b2c3d4e5f'],
    ['a UUID with more after it', '5d0c6a3e-1f2b-4c8d-9e7f-a1b2c3d4e5f6x'],
    ['nothing', ''],
    ['an attempt at SQL', "' or 1=1 --"],
  ])(
    'an id that is no UUID (%s) gets the first page again with the reason (400), at either step',
    async (_name, bad) => {
      const before = (await erasures()).length;
      for (const [url, fields] of [
        [confirmation, { visitor: bad }],
        [erase, { visitor: bad, confirm: 'true' }],
      ] as const) {
        const response = await admin.submit(start, url, fields);
        expect(response.statusCode, url).toBe(400);
        expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(textOf(response.body)).toContain(invalidId);
        expect(response.body).toContain('aria-invalid="true"');
        expect(response.body).toContain(`action="${confirmation}"`);
      }
      expect(await erasures()).toHaveLength(before);
    },
  );

  it('a role without customers:erase is shown no link and refused every step (403); the visitor is untouched', async () => {
    const visitor = '6e1d7b4f-2a3c-4d9e-8f0a-b1c2d3e4f5a6';
    const id = await choose(t.app, site, 'accept-all', standardChoice(true), { visitor });
    for (const role of ['editor', 'auditor']) {
      const { page } = await member(t.app, t.db, a.tenant, `no-erase-${role}`, [role]);
      const list = await page.get('/backoffice/cookies/decisions');
      expect(list.statusCode).toBe(200);
      expect(list.body).not.toContain(start);
      expect((await page.get(start)).statusCode, role).toBe(403);
      for (const [url, fields] of [
        [confirmation, { visitor }],
        [erase, { visitor, confirm: 'true' }],
      ] as const) {
        await page.get('/backoffice/cookies/decisions');
        const refused = await page.post(url, fields);
        expect(refused.statusCode, `${role} ${url}`).toBe(403);
        expect(refused.body).toContain('<nav aria-label="Main">');
      }
    }
    expect(await exported([id])).toEqual([[visitor, '203.0.113.0', 'Browser/1.0', 'accept-all']]);
  });

  it('customer service given customers:erase reaches it from Customers without seeing cookies, and its pages link nowhere it may not go', async () => {
    // docs/team.md: the Customer service role, and erasure from a custom role.
    const role = await createRole(t.db, a.tenant.id, {
      name: 'Privacy desk',
      description: 'Answers erasure requests',
      permissions: ['customers:view', 'customers:erase'],
    });
    const { page, email } = await member(t.app, t.db, a.tenant, 'privacy', [role.id]);
    const { page: service } = await member(t.app, t.db, a.tenant, 'service', ['customer_service']);
    expect((await service.get('/backoffice/customers')).body).not.toContain(start);
    expect((await page.get('/backoffice/customers')).body).toContain(`href="${start}"`);
    const visitor = '7f2e8c5a-3b4d-4e0f-9a1b-c2d3e4f5a6b7';
    const id = await choose(t.app, site, 'gpc', standardChoice(false), { visitor });
    expect((await page.get('/backoffice/cookies/decisions')).statusCode).toBe(403);
    const asked = await ask(page, visitor);
    expect(textOf(asked.body)).toContain('The tenant keeps 1 cookie choice of this visitor.');
    const erased = await page.post(erase, { visitor, confirm: 'true' });
    expect(textOf(erased.body).replace(/\s+/g, ' ')).toContain(
      `Visitor ${visitor} was erased: 1 cookie choice keeps its leaf in the decision log and its receipt`,
    );
    for (const body of [(await page.get(start)).body, asked.body, erased.body]) {
      expect(body).not.toContain('href="/backoffice/cookies/decisions"');
      expect(body).not.toContain('href="/backoffice/audit"');
    }
    expect(await exported([id])).toEqual([['', '', '', 'gpc']]);
    // The entry names the user as the audit log names everyone: e-mail, and name as it is now.
    expect((await erasures()).map((e) => [e.actor, e.actor_name])).toContainEqual([
      email,
      'privacy',
    ]);
  });

  it('a form without its token is refused (403) and erases nothing; another tenant finds nothing to erase', async () => {
    const visitor = '8a3f9d6b-4c5e-4f1a-8b2c-d3e4f5a6b7c8';
    const id = await choose(t.app, site, 'accept-all', standardChoice(true), { visitor });
    await ask(admin, visitor);
    for (const [url, fields] of [
      [confirmation, { visitor, _csrf: '' }],
      [erase, { visitor, confirm: 'true', _csrf: '' }],
    ] as const) {
      const tokenless = await admin.post(url, fields);
      expect(tokenless.statusCode, url).toBe(403);
      expect(textOf(tokenless.body)).toContain('This form has expired');
    }
    const b = await seedTenant(t.db);
    const intruder = await signedIn(t.app, b.tenant.email);
    await intruder.get(start);
    const elsewhere = await intruder.post(erase, { visitor, confirm: 'true' });
    expect(elsewhere.statusCode).toBe(200);
    expect(textOf(elsewhere.body)).toContain(
      `No cookie choice of visitor ${visitor} is kept: there is nothing to erase.`,
    );
    expect(await exported([id])).toEqual([[visitor, '203.0.113.0', 'Browser/1.0', 'accept-all']]);
  });
});
