import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser } from '../../src/accounts/users.js';
import { hashPassword } from '../../src/tenants/passwords.js';
import type { TestApp } from '../helpers/app.js';
import { type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { storeAgnostic } from '../helpers/stores.js';
import { testPasswordHashCost } from '../helpers/time.js';
import {
  type PageClient,
  signedIn,
  startBackofficeApp,
  tenantPassword,
  textOf,
  writeDraft,
} from './support.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Who wrote a draft, under four eyes (the default): the tenant's admin writes, Wes (Editor)
 * writes and submits, Rae reviews, Abe approves, Rex both reviews and approves.
 */
describe.each(storeAgnostic)('authorship of drafts and four eyes on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  const people = {
    wes: ['Wes Writer', ['editor']],
    rae: ['Rae Reviewer', ['reviewer']],
    abe: ['Abe Approver', ['approver']],
    rex: ['Rex Both', ['reviewer', 'approver', 'editor']],
  } as const;
  type Person = keyof typeof people | 'admin';
  const clients = new Map<Person, PageClient>();
  const as = (who: Person) => clients.get(who) as PageClient;
  const email = (who: Person) =>
    who === 'admin' ? a.tenant.email : `${who}-${a.tenant.alias}@example.test`;

  beforeAll(async () => {
    t = await startBackofficeApp(store);
    a = await seedTenant(t.db);
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
    clients.set('admin', await signedIn(t.app, a.tenant.email));
  });
  afterAll(async () => {
    await t?.close();
  });

  const path = (code: string, id: string) => `/backoffice/templates/${code}/versions/${id}`;
  async function step(who: Person, code: string, id: string, name: string, fields = {}) {
    await as(who).get(`${path(code, id)}/review`);
    return as(who).post(`${path(code, id)}/${name}`, { comment: '', ...fields });
  }
  const statusOf = async (id: string) =>
    (
      await t.db
        .selectFrom('template_versions')
        .select('status')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    ).status;

  it('four eyes: the admin who wrote a draft that a writer submitted can neither pass nor approve it', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const id = await writeDraft(as('admin'), code, {
      tag: '1.0',
      content_html: '<p>Savings fees</p>',
    });
    expect((await step('wes', code, id, 'submit')).statusCode).toBe(303);

    const page = await as('admin').get(`${path(code, id)}/review`);
    expect(textOf(page.body)).toContain(
      'Four eyes: you wrote or changed its text, so someone else must review it.',
    );
    expect(page.body).not.toContain('Pass to approval</button>');
    const pass = await step('admin', code, id, 'pass');
    expect(pass.statusCode).toBe(403);
    expect(textOf(pass.body)).toContain('Four eyes: you wrote or changed its text');
    // "Waiting for you" lists it for the reviewer, not for its author.
    const dashboard = async (who: Person) => (await as(who).get('/backoffice/dashboard')).body;
    expect(await dashboard('rae')).toContain(`versions/${id}`);
    expect(await dashboard('admin')).not.toContain(`versions/${id}`);

    expect((await step('rae', code, id, 'pass')).statusCode).toBe(303);
    const approvalPage = await as('admin').get(`${path(code, id)}/review`);
    expect(approvalPage.body).not.toContain('Approve and publish');
    const approve = await step('admin', code, id, 'approve', { publish_now: 'true' });
    expect(approve.statusCode).toBe(403);
    expect(textOf(approve.body)).toContain(
      'Four eyes: you wrote or changed its text, so someone else must approve it.',
    );
    expect(await statusOf(id)).toBe('reviewed');
    expect((await step('abe', code, id, 'approve', { publish_now: 'true' })).statusCode).toBe(303);
    expect(await statusOf(id)).toBe('published');
  });

  it('four eyes: whoever added a locale to a draft cannot pass it', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const id = await writeDraft(as('wes'), code, { tag: '1.0', content_html: '<p>Fees</p>' });
    await as('rex').get(`${path(code, id)}?locale=new`);
    const added = await as('rex').post(`${path(code, id)}/locales`, {
      adding: 'true',
      locale: 'th',
      content_html: '<p>ค่าธรรมเนียม</p>',
    });
    expect(added.statusCode).toBe(303);
    expect((await step('wes', code, id, 'submit')).statusCode).toBe(303);
    expect((await step('rex', code, id, 'pass')).statusCode).toBe(403);
    expect((await step('rae', code, id, 'pass')).statusCode).toBe(303);
  });

  it('"another approver" (off by default, audited when turned on): whoever passed the review cannot approve it', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const first = await writeDraft(as('wes'), code, { tag: '1.0', content_html: '<p>One</p>' });
    expect((await step('wes', code, first, 'submit')).statusCode).toBe(303);
    expect((await step('rex', code, first, 'pass')).statusCode).toBe(303);
    // Off by default: the reviewer may approve what they passed.
    expect((await step('rex', code, first, 'approve', { publish_now: 'true' })).statusCode).toBe(
      303,
    );

    const settings = await as('admin').submit('/backoffice/settings', '/backoffice/settings', {
      time_zone: 'UTC',
      four_eyes: 'true',
      distinct_approver: 'true',
    });
    expect(settings.statusCode).toBe(303);
    const audit = await t.db
      .selectFrom('audit_log')
      .select(['action', 'details'])
      .where('tenant_id', '=', a.tenant.id)
      .where('action', 'like', 'settings.distinct_approver%')
      .execute();
    expect(audit).toEqual([
      {
        action: 'settings.distinct_approver_on',
        details: JSON.stringify({ from: false, to: true }),
      },
    ]);

    const second = await writeDraft(as('wes'), code, { tag: '2.0', content_html: '<p>Two</p>' });
    expect((await step('wes', code, second, 'submit')).statusCode).toBe(303);
    expect((await step('rex', code, second, 'pass')).statusCode).toBe(303);
    const page = await as('rex').get(`${path(code, second)}/review`);
    expect(page.body).not.toContain('Approve and publish');
    const own = await step('rex', code, second, 'approve', { publish_now: 'true' });
    expect(own.statusCode).toBe(403);
    expect(textOf(own.body)).toContain(
      'Four eyes: you passed its review, and this team wants another person to approve it, so someone else must approve it.',
    );
    expect((await step('abe', code, second, 'approve', { publish_now: 'true' })).statusCode).toBe(
      303,
    );
    await as('admin').submit('/backoffice/settings', '/backoffice/settings', {
      time_zone: 'UTC',
      four_eyes: 'true',
    });
  });

  it('the timeline names who created the draft and each change, with its locale and hashes; a reviewer sees what changed since their review', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const v1 = '<p>We keep your e-mail address.</p>';
    const v2 = '<p>We keep your e-mail address and your phone number.</p>';
    const id = await writeDraft(as('admin'), code, { tag: '1.0', content_html: v1 });
    await as('wes').get(path(code, id));
    const edited = await as('wes').post(path(code, id), {
      tag: '1.0',
      content_html: v2,
      allow_reconsent: 'true',
    });
    expect(edited.statusCode).toBe(303);
    expect((await step('wes', code, id, 'submit')).statusCode).toBe(303);
    expect((await step('rae', code, id, 'send-back', { comment: 'Say why.' })).statusCode).toBe(
      303,
    );
    const v3 = '<p>We keep your e-mail address and your phone number to call you back.</p>';
    await as('wes').get(path(code, id));
    await as('wes').post(path(code, id), { tag: '1.0', content_html: v3, allow_reconsent: 'true' });
    expect((await step('wes', code, id, 'submit')).statusCode).toBe(303);

    const text = textOf((await as('rae').get(path(code, id))).body);
    const timeline = text.slice(text.indexOf('Timeline'));
    const admin = a.tenant.email;
    const order = [
      `Draft created by`,
      `${admin}`,
      `en: SHA-256 ${sha256(v1)}`,
      `Text changed (English) by Wes Writer (${email('wes')})`,
      `en: SHA-256 ${sha256(v1)} → ${sha256(v2)}`,
      `Submitted for review by Wes Writer`,
      `Sent back to draft by Rae Reviewer`,
      'Say why.',
      `Text changed (English) by Wes Writer`,
      `en: SHA-256 ${sha256(v2)} → ${sha256(v3)}`,
      `Submitted for review again by Wes Writer`,
    ];
    let at = 0;
    for (const words of order) {
      const found = timeline.indexOf(words, at);
      expect(found, words).toBeGreaterThanOrEqual(at);
      at = found + words.length;
    }

    const review = textOf((await as('rae').get(`${path(code, id)}/review`)).body);
    expect(review).toContain('Changes since your last review');
    const since = review.slice(review.indexOf('Changes since your last review'));
    expect(since).toMatch(/Against the text you reviewed .*: 4 words added, 0 words removed\./);
    // Someone who never reviewed it sees no such section.
    const fresh = textOf((await as('rex').get(`${path(code, id)}/review`)).body);
    expect(fresh).not.toContain('Changes since your last review');
  });

  it('"Add a locale" with a locale the draft has is refused and changes nothing', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const id = await writeDraft(as('wes'), code, { tag: '1.0', content_html: '<p>Fees</p>' });
    const add = async (locale: string, content: string) => {
      await as('wes').get(`${path(code, id)}?locale=new`);
      return as('wes').post(`${path(code, id)}/locales`, {
        adding: 'true',
        locale,
        content_html: content,
      });
    };
    expect((await add('th', '<p>ค่าธรรมเนียม</p>')).statusCode).toBe(303);
    const hashes = () =>
      t.db
        .selectFrom('template_versions')
        .select(['locale', 'content_sha256'])
        .where('release_id', '=', id)
        .orderBy('locale')
        .execute();
    const before = await hashes();

    for (const [locale, name] of [
      ['th', 'th'],
      ['TH', 'th'],
      ['en', 'en'],
    ] as const) {
      const again = await add(locale, '<p>Replaced</p>');
      expect(again.statusCode, locale).toBe(400);
      expect(textOf(again.body)).toContain(
        `This draft already has a ${name} text: change it in its own tab. Adding a locale never replaces a text.`,
      );
    }
    expect(await hashes()).toEqual(before);
    const saved = await t.db
      .selectFrom('audit_log')
      .select('id')
      .where('tenant_id', '=', a.tenant.id)
      .where('action', '=', 'version.locale_saved')
      .where('target', '=', `${code} 1.0`)
      .execute();
    expect(saved).toHaveLength(1);
  });

  it('a new draft starts with every locale of the latest release; after a rejection, from the rejected text, whose tag is free again', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const en = '<p>Fees are 1%.</p>';
    const th = '<p>ค่าธรรมเนียม 1%</p>';
    const id = await writeDraft(as('wes'), code, { tag: '1.0', content_html: en });
    await as('wes').get(`${path(code, id)}?locale=new`);
    await as('wes').post(`${path(code, id)}/locales`, {
      adding: 'true',
      locale: 'th',
      content_html: th,
    });
    await step('wes', code, id, 'submit');
    await step('rae', code, id, 'pass');
    expect((await step('abe', code, id, 'approve', { publish_now: 'true' })).statusCode).toBe(303);

    const newPage = await as('wes').get(`/backoffice/templates/${code}/versions/new`);
    expect(textOf(newPage.body)).toContain(
      'It starts from version 1 (tag 1.0). Its other locale is carried over when you save: Thai th;',
    );
    const next = await writeDraft(as('wes'), code, {
      tag: '1.1',
      content_html: '<p>Fees are 2%.</p>',
      from_release: /name="from_release" value="([^"]*)"/.exec(newPage.body)?.[1] ?? '',
    });
    const variants = await t.db
      .selectFrom('template_versions')
      .select(['locale', 'content_sha256'])
      .where('release_id', '=', next)
      .orderBy('locale')
      .execute();
    expect(variants).toEqual([
      { locale: 'en', content_sha256: sha256('<p>Fees are 2%.</p>') },
      { locale: 'th', content_sha256: sha256(th) },
    ]);

    await step('wes', code, next, 'submit');
    await step('rae', code, next, 'pass');
    expect((await step('abe', code, next, 'reject', { comment: 'Too high.' })).statusCode).toBe(
      303,
    );
    const afterRejection = await as('wes').get(`/backoffice/templates/${code}/versions/new`);
    expect(textOf(afterRejection.body)).toContain(
      'It starts from the rejected tag 1.1 (its tag is free to use again).',
    );
    expect(afterRejection.body).toContain('Fees are 2%.');
    expect(afterRejection.body).toMatch(/name="tag"[^>]*value="1\.1"/);
    const retry = await writeDraft(as('wes'), code, {
      tag: '1.1',
      content_html: '<p>Fees are 1.5%.</p>',
      from_release: /name="from_release" value="([^"]*)"/.exec(afterRejection.body)?.[1] ?? '',
    });
    const retried = await t.db
      .selectFrom('template_versions')
      .select(['locale', 'tag', 'status'])
      .where('release_id', '=', retry)
      .orderBy('locale')
      .execute();
    expect(retried).toEqual([
      { locale: 'en', tag: '1.1', status: 'draft' },
      { locale: 'th', tag: '1.1', status: 'draft' },
    ]);
  });

  it('publishing at once needs "Publish at once" ticked: an empty go-live time alone publishes nothing', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const id = await writeDraft(as('wes'), code, { tag: '1.0', content_html: '<p>Now?</p>' });
    await step('wes', code, id, 'submit');
    await step('rae', code, id, 'pass');
    const page = await as('abe').get(`${path(code, id)}/review`);
    expect(page.body).toMatch(
      /<input type="checkbox" id="publish_now" name="publish_now" value="true"/,
    );
    const bare = await step('abe', code, id, 'approve', { effective_at: '' });
    expect(bare.statusCode).toBe(400);
    expect(textOf(bare.body)).toContain(
      'Give a go-live time, or tick "Publish at once" to publish now: an empty time alone publishes nothing.',
    );
    expect(await statusOf(id)).toBe('reviewed');
    const now = await step('abe', code, id, 'approve', { effective_at: '', publish_now: 'true' });
    expect(now.statusCode).toBe(303);
    expect(await statusOf(id)).toBe('published');
  });
});
