/**
 * Data-subject requests in the back-office, on both stores (docs/requests.md): a request opened
 * for a customer, the queue by days left with an overdue one marked, the steps under
 * `requests:edit` and the answer under `requests:approve`, the refusals of a step the request
 * cannot take shown on the page, notes sealed with the customer, and every act in the audit log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../../src/accounts/users.js';
import { hashPassword } from '../../src/tenants/passwords.js';
import type { TestApp } from '../helpers/app.js';
import { dayAt, daysLeftSeen } from '../helpers/days.js';
import { pollUntil } from '../helpers/process.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { budget, testPasswordHashCost } from '../helpers/time.js';
import {
  type PageClient,
  signedIn,
  startBackofficeApp,
  tenantPassword,
  textOf,
} from './support.js';

/** The day `days` after `day`. */
const daysLater = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

describe.each(stores)('data-subject requests in the back-office on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let admin: PageClient;
  let service: PageClient;

  beforeAll(async () => {
    t = await startBackofficeApp(store);
    a = await seedTenant(t.db);
    await t.db
      .updateTable('tenants')
      .set({ time_zone: 'Asia/Bangkok' })
      .where('id', '=', a.tenant.id)
      .execute();
    admin = await signedIn(t.app, a.tenant.email);
    const hash = await hashPassword(tenantPassword, testPasswordHashCost);
    await t.db.transaction().execute((trx) =>
      addUser(trx, a.tenant.id, {
        email: `customer_service-${a.tenant.alias}@example.test`,
        name: 'Somchai Service',
        roles: ['customer_service'],
        passwordHash: hash,
      }),
    );
    service = await signedIn(t.app, `customer_service-${a.tenant.alias}@example.test`);
  });
  afterAll(() => t?.close());

  /** Opens a request from the queue's form; answers the request's page path. */
  async function openFor(client: PageClient, customer: string, kind: string, details = '') {
    const response = await client.submit('/backoffice/requests', '/backoffice/requests', {
      customer_id: customer,
      kind,
      details,
    });
    expect(response.statusCode, response.body).toBe(303);
    const location = String(response.headers.location);
    expect(location).toMatch(/^\/backoffice\/requests\/[0-9a-f-]{36}\?notice=opened$/);
    return location.replace(/\?.*$/, '');
  }
  const actionsOf = async () =>
    (
      await t.db
        .selectFrom('audit_log')
        .select(['action', 'actor'])
        .where('tenant_id', '=', a.tenant.id)
        .where('action', 'like', 'request.%')
        .orderBy('created_at')
        .orderBy('id')
        .execute()
    ).map((r) => `${r.action} by ${r.actor}`);

  it('customer service opens a request for a customer; the queue shows it with 30 days left', async () => {
    const before = dayAt(7);
    const path = await openFor(service, 'cust-1001', 'access', 'By letter: a copy of my data.');
    // 30 days left on the day it came in, in Bangkok; 29 should the check cross midnight there.
    const left = daysLeftSeen(daysLater(before, 30), before, 7).map((n) => `${n} days left`);
    const page = await service.get(path);
    expect(page.statusCode).toBe(200);
    const text = textOf(page.body);
    expect(text).toContain('Access request');
    expect(text).toContain('cust-1001');
    expect(left.some((words) => text.includes(words))).toBe(true);
    expect(text).toContain('By letter: a copy of my data.');
    expect(text).toMatch(/Received: .* by Somchai Service/);
    const queue = textOf((await service.get('/backoffice/requests')).body);
    expect(queue).toContain('cust-1001');
    expect(left.some((words) => queue.includes(words))).toBe(true);
  });

  it('orders the queue by days left and marks an overdue request', async () => {
    const late = await openFor(admin, 'cust-late', 'erasure');
    const id = late.split('/').pop() ?? '';
    // Received long ago: its due date (in Bangkok) was yesterday.
    const yesterday = new Date(Date.now() + 7 * 3_600_000 - 86_400_000).toISOString().slice(0, 10);
    await t.db
      .updateTable('subject_requests')
      .set({ due_on: yesterday })
      .where('id', '=', id)
      .execute();
    const body = (await admin.get('/backoffice/requests')).body;
    expect(body).toContain('<tr class="overdue">');
    const text = textOf(body);
    expect(text).toContain('1 day overdue');
    expect(text.indexOf('cust-late')).toBeLessThan(text.indexOf('cust-1001'));
  });

  it('customer service checks identity and starts work, but may not answer; the admin refuses with a ground and reason', async () => {
    const path = await openFor(service, 'cust-2002', 'objection');
    expect(
      (await service.submit(path, `${path}/steps`, { step: 'identity_checked' })).statusCode,
    ).toBe(303);
    expect((await service.submit(path, `${path}/steps`, { step: 'in_progress' })).statusCode).toBe(
      303,
    );
    const shown = textOf((await service.get(path)).body);
    expect(shown).toContain('Identity checked');
    expect(shown).not.toContain('Answer it');
    const forbidden = await service.post(`${path}/decision`, { step: 'done' });
    expect(forbidden.statusCode).toBe(403);
    // A refusal without its reason: the page says what is missing, and nothing is recorded.
    const missing = await admin.submit(path, `${path}/decision`, {
      step: 'refused',
      ground: 'compelling_legitimate_grounds',
      reason: '',
    });
    expect(missing.statusCode).toBe(400);
    expect(textOf(missing.body)).toContain('reason: required to refuse');
    const refused = await admin.submit(path, `${path}/decision`, {
      step: 'refused',
      ground: 'compelling_legitimate_grounds',
      reason: 'Fraud monitoring continues on the account.',
    });
    expect(refused.statusCode).toBe(303);
    const after = textOf((await admin.get(path)).body);
    expect(after).toContain('Refused');
    expect(after).toContain('compelling_legitimate_grounds');
    expect(after).toContain('Fraud monitoring continues on the account.');
    expect(after).not.toContain('Answer it');
    const again = await admin.post(`${path}/decision`, { step: 'done' });
    expect(again.statusCode).toBe(400);
    expect(textOf(again.body)).toContain('closed request');
    const closed = textOf((await admin.get('/backoffice/requests?closed=1')).body);
    expect(closed).toContain('cust-2002');
  });

  it('assigns a request, keeps notes sealed with the customer, and audits every act by its user', async () => {
    const path = await openFor(
      admin,
      'cust-3003',
      'rectification',
      'My address moved to Chiang Mai.',
    );
    const me = await t.db
      .selectFrom('users')
      .select('id')
      .where('email', '=', `customer_service-${a.tenant.alias}@example.test`)
      .executeTakeFirstOrThrow();
    expect((await admin.submit(path, `${path}/assignee`, { assignee_id: me.id })).statusCode).toBe(
      303,
    );
    expect(
      (
        await admin.submit(path, `${path}/assignee`, {
          assignee_id: '0190e8a0-0000-7000-8000-000000000000',
        })
      ).statusCode,
    ).toBe(400);
    expect(
      (await service.submit(path, `${path}/notes`, { body: 'Called the customer back at 14:00.' }))
        .statusCode,
    ).toBe(303);
    const text = textOf((await admin.get(path)).body);
    expect(text).toMatch(/Assignee\s+Somchai Service/);
    expect(text).toContain('Somchai Service: Called the customer back at 14:00.');
    const stored = await t.db.selectFrom('request_notes').select('body').execute();
    expect(stored.map((n) => n.body).join()).not.toContain('Called the customer');
    const queue = textOf((await admin.get('/backoffice/requests')).body);
    expect(queue).toMatch(/cust-3003.*Somchai Service/);
    const actions = await actionsOf();
    expect(actions).toEqual(
      expect.arrayContaining([
        `request.received by customer_service-${a.tenant.alias}@example.test`,
        `request.identity_checked by customer_service-${a.tenant.alias}@example.test`,
        `request.refused by ${a.tenant.email}`,
        `request.assigned by ${a.tenant.email}`,
        `request.noted by customer_service-${a.tenant.alias}@example.test`,
      ]),
    );
  });

  it('an access request done shows its single-use link once, which downloads the data once', async () => {
    const path = await openFor(service, 'cust-4004', 'access');
    await service.submit(path, `${path}/steps`, { step: 'identity_checked' });
    const done = await admin.submit(path, `${path}/decision`, {
      step: 'done',
      ground: '',
      reason: '',
    });
    expect(done.statusCode).toBe(303);
    const shown = await admin.get(String(done.headers.location));
    const link = /aria-label="Link for the customer" value="([^"]+)"/.exec(shown.body)?.[1];
    expect(link).toMatch(/^https:\/\/consent\.test\/requests\/deliveries\/[A-Za-z0-9_-]{43}$/);
    expect((await admin.get(path)).body).not.toContain('Link for the customer');
    const url = new URL(link ?? '').pathname;
    // A pack waits for the customer's records to be in the log (503, the link not used up).
    const download = await pollUntil(
      async () => {
        const r = await t.app.inject({ method: 'GET', url });
        return r.statusCode === 503 ? undefined : r;
      },
      { timeoutMs: budget(30_000) },
    );
    expect(download?.statusCode, download?.body).toBe(200);
    expect(download?.headers['content-type']).toBe('application/zip');
    expect((await t.app.inject({ method: 'GET', url })).statusCode).toBe(404);
  });

  it('a withdrawal request opened here is not done here: no key vouched for it, and nothing is withdrawn', async () => {
    const path = await openFor(service, 'cust-5005', 'withdrawal');
    await service.submit(path, `${path}/steps`, { step: 'identity_checked' });
    const done = await admin.submit(path, `${path}/decision`, {
      step: 'done',
      ground: '',
      reason: '',
    });
    expect(done.statusCode).toBe(400);
    expect(textOf(done.body)).toContain('withdraw the consents through the API');
    expect(textOf((await admin.get(path)).body)).toContain('Identity checked');
  });

  it('refuses a malformed form with the page, and an unknown request with 404', async () => {
    const bad = await admin.submit('/backoffice/requests', '/backoffice/requests', {
      customer_id: '',
      kind: 'deletion',
      details: '',
    });
    expect(bad.statusCode).toBe(400);
    expect(textOf(bad.body)).toContain('Choose a kind.');
    expect(
      (await admin.get('/backoffice/requests/0190e8a0-0000-7000-8000-000000000000')).statusCode,
    ).toBe(404);
    expect((await admin.get('/backoffice/requests/not-an-id')).statusCode).toBe(404);
  });
});
