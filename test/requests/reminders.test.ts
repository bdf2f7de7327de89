/**
 * Reminders of data-subject requests' due dates, on both stores (docs/requests.md, "Reminders"),
 * through a real SMTP server on loopback: due in 7 days, due tomorrow or today, overdue, each
 * e-mailed once to the assignee or, with none, to whoever may answer requests; naming the kind,
 * the due date and the page, never the customer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../../src/accounts/users.js';
import { createMailer } from '../../src/platform/mail.js';
import { openRequest, remindDueRequests, reminderFor } from '../../src/requests/index.js';
import { hashPassword } from '../../src/tenants/passwords.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { type SmtpListener, startSmtpServer } from '../helpers/smtp.js';
import { stores } from '../helpers/stores.js';
import { testPasswordHashCost } from '../helpers/time.js';

describe('which reminder a request calls for', () => {
  it('none beyond a week; 7 days down to 2; tomorrow and today; overdue after', () => {
    expect([9, 8, 7, 2, 1, 0, -1, -30].map(reminderFor)).toEqual([
      undefined,
      undefined,
      'due-in-7-days',
      'due-in-7-days',
      'due-tomorrow',
      'due-tomorrow',
      'overdue',
      'overdue',
    ]);
  });
});

describe.each(stores)('reminders of requests due on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let smtp: SmtpListener;
  let assigneeId: string;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    // The app's own pass runs every 50 ms.
    t = await startTestApp(store, { SMTP_URL: smtp.url, REQUEST_REMINDER_INTERVAL_MS: '50' });
    a = await seedTenant(t.db);
    const hash = await hashPassword('a long enough password', testPasswordHashCost);
    assigneeId = (
      await t.db.transaction().execute((trx) =>
        addUser(trx, a.tenant.id, {
          email: `desk-${a.tenant.alias}@example.test`,
          name: 'Rights desk',
          roles: ['customer_service'],
          passwordHash: hash,
        }),
      )
    ).id;
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  const requester = () => ({
    tenantId: a.tenant.id,
    apiKeyId: a.apiKey.id,
    userId: null,
    ip: '192.0.2.9',
    userAgent: null,
  });
  const day = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
  /** A request due `days` from today (the tenant's zone is UTC), and what else is set with it. */
  const dueIn = async (customer: string, days: number, more: Record<string, string> = {}) => {
    const { request } = await openRequest(t.db, t.vault, requester(), {
      customerId: customer,
      kind: 'access',
    });
    await t.db
      .updateTable('subject_requests')
      .set({ due_on: day(days), ...more })
      .where('id', '=', request.id)
      .execute();
    return request.id;
  };

  it('e-mails the assignee of a request due in 7 days, and the approvers of one overdue, once each', async () => {
    const soon = await dueIn('rem-cust-a', 7, { assignee_id: assigneeId });
    const late = await dueIn('rem-cust-b', -2);
    const toDesk = await smtp.next((m) => m.text.includes(soon));
    expect(toDesk.to).toEqual([`desk-${a.tenant.alias}@example.test`]);
    expect(toDesk.subject).toBe('A data-subject request is due in 7 days');
    expect(toDesk.text).toContain(`https://consent.test/backoffice/requests/${soon}`);
    expect(toDesk.text).toContain('in 7 days');
    expect(toDesk.text).not.toContain('rem-cust-a');
    const toAdmin = await smtp.next((m) => m.text.includes(late));
    expect(toAdmin.to).toEqual([a.tenant.email]);
    expect(toAdmin.subject).toBe('A data-subject request is overdue');
    expect(toAdmin.text).toContain('2 days ago');
    // A pass of its own now finds nothing more to send of either.
    const mailer = createMailer({ smtpUrl: smtp.url, mailFrom: 'test <t@example.test>' });
    if (!mailer) throw new Error('no mailer');
    try {
      await remindDueRequests(t.db, mailer, (id) => id);
    } finally {
      mailer.close();
    }
    const about = (id: string) => smtp.received.filter((m) => m.text.includes(id));
    expect(about(soon)).toHaveLength(1);
    expect(about(late)).toHaveLength(1);
  });

  it('sends the next reminder as the due date comes closer, and none of a closed request', async () => {
    const id = await dueIn('rem-cust-c', 7);
    await smtp.next((m) => m.text.includes(id) && m.subject.endsWith('in 7 days'));
    await t.db
      .updateTable('subject_requests')
      .set({ due_on: day(0) })
      .where('id', '=', id)
      .execute();
    const today = await smtp.next((m) => m.text.includes(id) && m.subject.endsWith('tomorrow'));
    expect(today.text).toContain('is due today');
    // Closed before its due date came near: due and closed in one change.
    const closed = await dueIn('rem-cust-d', -5, {
      status: 'refused',
      closed_at: new Date().toISOString(),
    });
    // Made after it and reminded of: the passes have run since it was closed.
    const after = await dueIn('rem-cust-e', -1);
    await smtp.next((m) => m.text.includes(after));
    expect(smtp.received.filter((m) => m.text.includes(closed))).toEqual([]);
  });
});

describe.each(stores)('a pass of reminders on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let smtp: SmtpListener;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    // No SMTP_URL: the app runs no pass of its own; the test runs them.
    t = await startTestApp(store);
    a = await seedTenant(t.db);
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  it('looking at one request at a time, it still reaches the next past one told it is overdue', async () => {
    const requester = {
      tenantId: a.tenant.id,
      apiKeyId: a.apiKey.id,
      userId: null,
      ip: '192.0.2.9',
      userAgent: null,
    };
    const dueIn = async (customer: string, days: number) => {
      const { request } = await openRequest(t.db, t.vault, requester, {
        customerId: customer,
        kind: 'access',
      });
      const due = new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
      await t.db
        .updateTable('subject_requests')
        .set({ due_on: due })
        .where('id', '=', request.id)
        .execute();
      return request.id;
    };
    const mailer = createMailer({ smtpUrl: smtp.url, mailFrom: 'test <t@example.test>' });
    if (!mailer) throw new Error('no mailer');
    try {
      const late = await dueIn('pass-late', -10);
      expect(await remindDueRequests(t.db, mailer, (id) => id, undefined, 1)).toBe(1);
      const next = await dueIn('pass-next', 3);
      // The overdue one, the most urgent, is told already: the pass of one reaches the next.
      expect(await remindDueRequests(t.db, mailer, (id) => id, undefined, 1)).toBe(1);
      expect(await remindDueRequests(t.db, mailer, (id) => id, undefined, 1)).toBe(0);
      expect(
        smtp.received.map((m) => [m.subject, m.text.includes(late), m.text.includes(next)]),
      ).toEqual([
        ['A data-subject request is overdue', true, false],
        ['A data-subject request is due in 7 days', false, true],
      ]);
    } finally {
      mailer.close();
    }
  });
});
