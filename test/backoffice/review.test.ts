import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../../src/accounts/users.js';
import { hashPassword } from '../../src/tenants/passwords.js';
import { apiOf } from '../helpers/api.js';
import { json, type TestApp } from '../helpers/app.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { type SmtpListener, startSmtpServer } from '../helpers/smtp.js';
import { storeAgnostic } from '../helpers/stores.js';
import { testPasswordHashCost } from '../helpers/time.js';
import {
  type PageClient,
  signedIn,
  startBackofficeApp,
  tenantPassword,
  textOf,
} from './support.js';

/**
 * Review and approval with a team of four people, four eyes on (the default): Ed writes and
 * submits, Rae reviews, Abe approves, and Sam holds both the Editor and Reviewer roles.
 */
describe.each(storeAgnostic)('review and approval of versions on $name', (store) => {
  let t: TestApp;
  let smtp: SmtpListener;
  let a: SeededTenant;
  let code: string;
  const people = {
    ed: ['Ed Editor', ['editor']],
    rae: ['Rae Reviewer', ['reviewer']],
    abe: ['Abe Approver', ['approver']],
    sam: ['Sam Both', ['editor', 'reviewer']],
    ada: ['Ada Both', ['editor', 'approver']],
  } as const;
  type Person = keyof typeof people;
  const email = (who: Person) => `${who}-${a.tenant.alias}@example.test`;
  const clients = new Map<Person, PageClient>();
  const as = (who: Person) => clients.get(who) as PageClient;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startBackofficeApp(store, {
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Consent <no-reply@consent.test>',
    });
    a = await seedTenant(t.db);
    code = await seedTemplate(t.db, a.tenant.id);
    await publish(t.db, a.tenant.id, code, {
      tag: '1.0',
      content_html: '<p>We keep your e-mail address.</p>',
    });
    const hash = await hashPassword(tenantPassword, testPasswordHashCost);
    for (const [who, [name, roles]] of Object.entries(people)) {
      await t.db.transaction().execute((trx) =>
        addUser(trx, a.tenant.id, {
          email: email(who as Person),
          name,
          roles: [...roles],
          passwordHash: hash,
        }),
      );
      clients.set(who as Person, await signedIn(t.app, email(who as Person)));
    }
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  const versionPath = (id: string) => `/backoffice/templates/${code}/versions/${id}`;

  async function draft(who: Person, tag: string, content: string): Promise<string> {
    const made = await as(who).submit(
      `/backoffice/templates/${code}/versions/new`,
      `/backoffice/templates/${code}/versions`,
      { tag, content_html: content, allow_reconsent: 'true' },
    );
    expect(made.statusCode, made.body).toBe(303);
    return /\/versions\/([0-9a-f-]{36})/.exec(String(made.headers.location))?.[1] ?? '';
  }

  /** Takes a step from the review page, as a person at a browser would. */
  async function step(who: Person, id: string, name: string, comment = '') {
    await as(who).get(`${versionPath(id)}/review`);
    return as(who).post(`${versionPath(id)}/${name}`, {
      comment,
      ...(name === 'approve' ? { publish_now: 'true' } : {}),
    });
  }

  const statusOf = async (id: string) =>
    (
      await t.db
        .selectFrom('template_versions')
        .select('status')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    ).status;

  it('submit, send back with a comment, submit again, pass, approve: the API answers it, and the timeline and audit log keep each step', async () => {
    const id = await draft('ed', '2.0', '<p>We keep your e-mail address and phone number.</p>');
    const submitted = await step('ed', id, 'submit', 'New: phone numbers.');
    expect(submitted.statusCode).toBe(303);
    expect(submitted.headers.location).toBe(`${versionPath(id)}/review?notice=submitted`);
    expect(await statusOf(id)).toBe('in_review');

    // In review, the draft can no longer be edited.
    await as('ed').get(versionPath(id));
    const edit = await as('ed').post(versionPath(id), { tag: '2.0', content_html: '<p>x</p>' });
    expect(edit.statusCode).toBe(409);
    expect(textOf(edit.body)).toContain(
      'Only a draft can be changed: this version is waiting for review.',
    );

    // Sending back needs a comment: the page again, with the reason, the typed text kept.
    const bare = await step('rae', id, 'send-back', '   ');
    expect(bare.statusCode).toBe(400);
    expect(textOf(bare.body)).toContain('The comment is required: say what must change, or why.');
    expect(await statusOf(id)).toBe('in_review');
    const back = await step('rae', id, 'send-back', 'Say why we keep the number.');
    expect(back.statusCode).toBe(303);
    expect(await statusOf(id)).toBe('draft');

    await as('ed').get(versionPath(id));
    const fixed = await as('ed').post(versionPath(id), {
      tag: '2.0',
      content_html: '<p>We keep your e-mail address and phone number to call you back.</p>',
      allow_reconsent: 'true',
    });
    expect(fixed.statusCode).toBe(303);
    expect((await step('ed', id, 'submit')).statusCode).toBe(303);
    expect((await step('rae', id, 'pass', 'Clear now.')).statusCode).toBe(303);
    expect(await statusOf(id)).toBe('reviewed');

    const review = await as('abe').get(`${versionPath(id)}/review`);
    const text = textOf(review.body);
    expect(text).toContain(
      'Once approved it is published as version 2, at once or at the time you give.',
    );
    expect(text).toContain('Against version 1 (tag 1.0): 7 words added, 0 words removed.');
    expect(text).toContain('allowed: a customer who decided on this version can decide again');
    expect(review.body).toContain('Approve and publish version 2</button>');

    const approved = await step('abe', id, 'approve');
    expect(approved.statusCode).toBe(303);
    expect(approved.headers.location).toBe(`/backoffice/templates/${code}?notice=published`);
    const latest = json(await apiOf(t.app, a.headers).latest(code));
    expect(latest.data).toMatchObject({ consent_version_id: id, version: 2, tag: '2.0' });

    const shown = textOf((await as('ed').get(versionPath(id))).body);
    const timeline = shown.slice(shown.indexOf('Timeline'));
    const order = [
      `Draft created by Ed Editor (${email('ed')})`,
      `Submitted for review by Ed Editor (${email('ed')})`,
      'New: phone numbers.',
      `Sent back to draft by Rae Reviewer (${email('rae')})`,
      'Say why we keep the number.',
      `Text changed (English) by Ed Editor (${email('ed')})`,
      `Submitted for review again by Ed Editor (${email('ed')})`,
      `Review passed by Rae Reviewer (${email('rae')})`,
      'Clear now.',
      `Approved by Abe Approver (${email('abe')})`,
      'Published as version 2',
    ];
    let at = 0;
    for (const words of order) {
      const found = timeline.indexOf(words, at);
      expect(found, words).toBeGreaterThanOrEqual(at);
      at = found + words.length;
    }

    const audit = await t.db
      .selectFrom('audit_log')
      .select(['action', 'actor', 'details'])
      .where('tenant_id', '=', a.tenant.id)
      .where('target', '=', `${code} 2.0`)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    expect(audit.map((e) => [e.action, e.actor])).toEqual([
      ['version.draft_created', email('ed')],
      ['version.submitted', email('ed')],
      ['version.sent_back', email('rae')],
      ['version.draft_updated', email('ed')],
      ['version.submitted', email('ed')],
      ['version.review_passed', email('rae')],
      ['version.approved', email('abe')],
      ['version.published', email('abe')],
    ]);
    expect(JSON.parse(audit[2]?.details ?? '{}')).toMatchObject({
      comment: 'Say why we keep the number.',
    });
  });

  it('each step needs its own permission: an editor cannot pass or approve, a reviewer cannot approve (403)', async () => {
    const id = await draft('ed', '3.0', '<p>Three</p>');
    expect((await step('rae', id, 'submit')).statusCode).toBe(403);
    expect((await step('ed', id, 'submit')).statusCode).toBe(303);
    expect((await step('ed', id, 'pass')).statusCode).toBe(403);
    expect((await step('abe', id, 'send-back', 'No')).statusCode).toBe(403);
    expect((await step('rae', id, 'pass')).statusCode).toBe(303);
    expect((await step('rae', id, 'approve')).statusCode).toBe(403);
    expect((await step('ed', id, 'reject', 'No')).statusCode).toBe(403);
    expect(await statusOf(id)).toBe('reviewed');
  });

  it('steps out of order answer 409 with where the version is; a rejected version stays so for good', async () => {
    const id = await draft('ed', '4.0', '<p>Four</p>');
    const early = await step('abe', id, 'approve');
    expect(early.statusCode).toBe(409);
    expect(textOf(early.body)).toContain('This version is a draft, not waiting for approval.');
    expect((await step('rae', id, 'pass')).statusCode).toBe(409);
    expect((await step('ed', id, 'submit')).statusCode).toBe(303);
    expect((await step('ed', id, 'submit')).statusCode).toBe(409);
    expect((await step('abe', id, 'approve')).statusCode).toBe(409);
    expect((await step('rae', id, 'pass')).statusCode).toBe(303);

    const bare = await step('abe', id, 'reject');
    expect(bare.statusCode).toBe(400);
    expect(textOf(bare.body)).toContain('The comment is required');
    const rejected = await step('abe', id, 'reject', 'We do not keep phone numbers.');
    expect(rejected.statusCode).toBe(303);
    expect(await statusOf(id)).toBe('rejected');
    for (const name of ['submit', 'pass', 'approve']) {
      const who: Person = name === 'submit' ? 'ed' : name === 'pass' ? 'rae' : 'abe';
      const again = await step(who, id, name);
      expect(again.statusCode, name).toBe(409);
      expect(textOf(again.body)).toContain('This version is rejected');
    }
    expect(json(await apiOf(t.app, a.headers).latest(code)).data.tag).not.toBe('4.0');
  });

  it('four eyes: whoever submitted cannot pass the review nor approve (403), and is told so on the review page', async () => {
    const id = await draft('sam', '5.0', '<p>Five</p>');
    expect((await step('sam', id, 'submit')).statusCode).toBe(303);
    const page = await as('sam').get(`${versionPath(id)}/review`);
    expect(textOf(page.body)).toContain(
      'Four eyes: you submitted this version, so someone else must review it.',
    );
    expect(page.body).not.toContain('Pass to approval</button>');
    const own = await step('sam', id, 'pass');
    expect(own.statusCode).toBe(403);
    expect(textOf(own.body)).toContain(
      'Four eyes: you submitted this version, so someone else must review it.',
    );
    expect(await statusOf(id)).toBe('in_review');
    expect((await step('rae', id, 'pass')).statusCode).toBe(303);

    const other = await draft('ada', '5.1', '<p>Five and a bit</p>');
    expect((await step('ada', other, 'submit')).statusCode).toBe(303);
    expect((await step('rae', other, 'pass')).statusCode).toBe(303);
    const ownApproval = await step('ada', other, 'approve');
    expect(ownApproval.statusCode).toBe(403);
    expect(textOf(ownApproval.body)).toContain('so someone else must approve it.');
    expect(await statusOf(other)).toBe('reviewed');
  });

  it('"Waiting for you" lists, for each person, the versions at the step they may take', async () => {
    const waiting = async (who: Person) => {
      const body = textOf((await as(who).get('/backoffice/dashboard')).body);
      return body.slice(body.indexOf('Waiting for you'));
    };
    const id = await draft('ed', '6.0', '<p>Six</p>');
    expect(await waiting('rae')).not.toContain('6.0');
    await step('ed', id, 'submit');
    expect(await waiting('rae')).toContain('6.0 your review submitted by Ed Editor');
    expect(await waiting('abe')).not.toContain('6.0');
    await step('rae', id, 'send-back', 'Shorter, please.');
    expect(await waiting('ed')).toContain('6.0 changes: it was sent back');
    expect(await waiting('rae')).not.toContain('6.0');
    await step('ed', id, 'submit');
    await step('rae', id, 'pass');
    expect(await waiting('abe')).toContain('6.0 your approval review passed by Rae Reviewer');
    expect(await waiting('ed')).not.toContain('6.0');

    // Under four eyes, Sam's own submission waits for another reviewer, not for Sam.
    const own = await draft('sam', '6.1', '<p>Six and one</p>');
    await step('sam', own, 'submit');
    expect(await waiting('sam')).not.toContain('6.1');
    expect(await waiting('rae')).toContain('6.1 your review');
  });

  it('the people who can take the next step get an e-mail with the review link; the submitter hears of a send-back', async () => {
    const id = await draft('ed', '7.0', '<p>Seven</p>');
    const link = `https://consent.test/backoffice/templates/${code}/versions/${id}/review`;
    await step('ed', id, 'submit', 'Please look at seven.');
    const toReviewer = await smtp.next(
      (m) => m.to.includes(email('rae')) && m.subject.includes('7.0'),
    );
    const { name } = await t.db
      .selectFrom('templates')
      .select('name')
      .where('code', '=', code)
      .executeTakeFirstOrThrow();
    expect(toReviewer.subject).toBe(`Review: ${name}, tag 7.0`);
    expect(toReviewer.text).toContain(`Ed Editor (${email('ed')}) submitted for review tag 7.0`);
    expect(toReviewer.text).toContain('Please look at seven.');
    expect(toReviewer.text).toContain(link);
    await smtp.next((m) => m.to.includes(email('sam')) && m.subject.includes('7.0'));

    await step('rae', id, 'send-back', 'Eight is better.');
    const toEditor = await smtp.next(
      (m) =>
        m.to.includes(email('ed')) &&
        m.subject.startsWith('Sent back') &&
        m.subject.endsWith('tag 7.0'),
    );
    expect(toEditor.text).toContain('Eight is better.');
    expect(toEditor.text).toContain(link);

    // Nobody with versions:review other than Rae and Sam (and the admin) was told; the
    // submitter never hears of their own step, and approvers not before a review passed.
    const told = smtp.received
      .filter((m) => m.subject.startsWith('Review:') && m.subject.endsWith('tag 7.0'))
      .flatMap((m) => m.to)
      .sort();
    expect(told).toEqual([a.tenant.email, email('rae'), email('sam')].sort());

    // Resubmitted and passed: those who may approve hear of it, the one who passed it does not.
    await step('ed', id, 'submit');
    await step('rae', id, 'pass');
    await smtp.next(
      (m) =>
        m.to.includes(email('abe')) &&
        m.subject.startsWith('Approval') &&
        m.subject.endsWith('tag 7.0'),
    );
    await smtp.next(
      (m) =>
        m.to.includes(email('ada')) &&
        m.subject.startsWith('Approval') &&
        m.subject.endsWith('tag 7.0'),
    );
    await smtp.next(
      (m) =>
        m.to.includes(a.tenant.email) &&
        m.subject.startsWith('Approval') &&
        m.subject.endsWith('tag 7.0'),
    );
    const approvers = smtp.received
      .filter((m) => m.subject.startsWith('Approval:') && m.subject.endsWith('tag 7.0'))
      .flatMap((m) => m.to)
      .sort();
    expect(approvers).toEqual([a.tenant.email, email('abe'), email('ada')].sort());
  });

  it('turning four eyes off in Settings is audited, and then one person may pass and approve what they submitted', async () => {
    const admin = await signedIn(t.app, a.tenant.email);
    const save = (fourEyes: boolean) =>
      admin.submit('/backoffice/settings', '/backoffice/settings', {
        time_zone: 'UTC',
        ...(fourEyes ? { four_eyes: 'true' } : {}),
      });
    expect((await save(false)).statusCode).toBe(303);
    expect((await admin.get('/backoffice/settings')).body).toMatch(
      /<input type="checkbox" id="four_eyes" name="four_eyes" value="true"(?! checked)/,
    );
    const id = await draft('sam', '8.0', '<p>Eight</p>');
    expect((await step('sam', id, 'submit')).statusCode).toBe(303);
    expect((await step('sam', id, 'pass')).statusCode).toBe(303);
    expect((await save(true)).statusCode).toBe(303);
    const actions = await t.db
      .selectFrom('audit_log')
      .select(['action', 'actor'])
      .where('tenant_id', '=', a.tenant.id)
      .where('action', 'like', 'settings.four_eyes%')
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    expect(actions).toEqual([
      { action: 'settings.four_eyes_off', actor: a.tenant.email },
      { action: 'settings.four_eyes_on', actor: a.tenant.email },
    ]);
  });

  it('two approvals of one version at once: one publishes it, the other is told it moved on (409)', async () => {
    const admin = await signedIn(t.app, a.tenant.email);
    const id = await draft('ed', '9.0', '<p>Nine</p>');
    await step('ed', id, 'submit');
    await step('rae', id, 'pass');
    await as('abe').get(`${versionPath(id)}/review`);
    await admin.get(`${versionPath(id)}/review`);
    const answers = await Promise.all([
      as('abe').post(`${versionPath(id)}/approve`, { publish_now: 'true' }),
      admin.post(`${versionPath(id)}/approve`, { publish_now: 'true' }),
    ]);
    expect(answers.map((r) => r.statusCode).sort()).toEqual([303, 409]);
    const approvals = await t.db
      .selectFrom('version_reviews')
      .select('step')
      .where('version_id', '=', id)
      .where('step', '=', 'approved')
      .execute();
    expect(approvals).toHaveLength(1);
    expect(await statusOf(id)).toBe('published');
  });
});
