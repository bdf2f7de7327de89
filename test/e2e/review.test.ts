import { createHash } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capture, launchChromium, signInAs, watch } from '../backoffice/browser.js';
import {
  expectJsonObject,
  makeTempStore,
  runCli,
  type ServerProcess,
  startServer,
  type TempStore,
} from '../helpers/process.js';
import { type SmtpListener, startSmtpServer } from '../helpers/smtp.js';
import { journeyStore } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';

/** This journey's store (see `journeyStore`). */
const journey = journeyStore('postgres');

const admin = { email: 'head@bank.example', password: 'bank head password 1' };
const team = {
  writer: {
    name: 'Wren Writer',
    email: 'wren@bank.example',
    password: 'silver kettle orchard 51',
    roles: ['Editor'],
  },
  reviewer: {
    name: 'Rosa Reviewer',
    email: 'rosa@bank.example',
    password: 'granite pillow sunrise 28',
    roles: ['Reviewer'],
  },
  approver: {
    name: 'Arlo Approver',
    email: 'arlo@bank.example',
    password: 'velvet compass thunder 73',
    roles: ['Approver'],
  },
} as const;
type Member = keyof typeof team;

const english = '<p>Savings accounts pay no monthly fee.</p>';
const thai = '<p>บัญชีออมทรัพย์ไม่มีค่าธรรมเนียมรายเดือน</p>';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * A bank's review of `savings_fees` in Chromium: the admin writes 1.0 and its Thai text, a writer
 * submits it; four eyes keeps the admin, its author, from passing or approving it; the timeline
 * names each change with its hashes; adding a locale the draft has is refused; publishing at once
 * must be ticked; the next draft starts with both locales.
 */
describe.each(journey)('the review of a draft by authorship in Chromium, on $name', (testStore) => {
  describe.sequential('write, submit, four eyes, approve, next draft', {
    timeout: budget(60_000),
  }, () => {
    let store: TempStore;
    let server: ServerProcess;
    let smtp: SmtpListener;
    let browser: Browser;
    const pages = new Map<Member | 'admin', Page>();
    const problems: string[][] = [];
    let draftPath = '';
    const url = (path: string) => `${server.baseUrl}${path}`;
    const as = (who: Member | 'admin') => pages.get(who) as Page;
    const shot = (who: Member | 'admin', name: string) =>
      capture(as(who), `review-${testStore.name}-${name}`);
    const main = (who: Member | 'admin') => as(who).locator('main').textContent();
    const cli = (...args: string[]) => runCli(args, server.env).then(expectJsonObject);

    async function newPage(who: Member | 'admin'): Promise<Page> {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      page.setDefaultTimeout(budget(5_000));
      problems.push(watch(page).problems);
      pages.set(who, page);
      return page;
    }

    beforeAll(async () => {
      smtp = await startSmtpServer();
      store = await makeTempStore(testStore);
      server = await startServer({
        store,
        env: { SMTP_URL: smtp.url, MAIL_FROM: 'Bank consent <consent@bank.example>' },
      });
      await cli(
        'tenant',
        'create',
        '--alias',
        'bank',
        '--email',
        admin.email,
        '--password',
        admin.password,
      );
      await cli(
        'template',
        'create',
        '--tenant',
        'bank',
        '--code',
        'savings_fees',
        '--name',
        'Savings fees',
      );
      browser = await launchChromium();
    });

    afterAll(async () => {
      await browser?.close();
      try {
        await server?.stop(budget(10_000));
      } finally {
        await store?.remove();
        await smtp?.close();
      }
    });

    it('the admin invites a writer, a reviewer and an approver, who set their passwords', async () => {
      const page = await newPage('admin');
      await signInAs(page, server.baseUrl, admin.email, admin.password);
      await page.waitForURL(url('/backoffice/dashboard'));
      for (const member of Object.values(team)) {
        await page.goto(url('/backoffice/users/new'));
        await page.getByLabel('Name').fill(member.name);
        await page.getByLabel('E-mail').fill(member.email);
        for (const role of member.roles) {
          await page.getByRole('checkbox', { name: new RegExp(`^${role}\\b`) }).check();
        }
        await page.getByRole('button', { name: 'Invite' }).click();
        await expect
          .poll(() => page.locator('main').textContent())
          .toContain(`The invitation was e-mailed to ${member.email}.`);
      }
      for (const [who, member] of Object.entries(team) as Array<[Member, (typeof team)[Member]]>) {
        const mail = await smtp.next((m) => m.to.includes(member.email));
        const link =
          /http:\/\/127\.0\.0\.1:\d+\/backoffice\/password\?token=[A-Za-z0-9_-]{43}/.exec(
            mail.text,
          )?.[0];
        expect(link, mail.text).toBeDefined();
        const own = await newPage(who);
        await own.goto(link as string);
        await own.getByLabel('New password', { exact: true }).fill(member.password);
        await own.getByLabel('New password again').fill(member.password);
        await own.getByRole('button', { name: 'Set the password' }).click();
        await own.waitForURL(/\/backoffice\/sign-in/);
        await signInAs(own, server.baseUrl, member.email, member.password);
        await own.waitForURL(url('/backoffice/dashboard'));
      }
    });

    it('the admin writes 1.0 with a Thai text; adding Thai again is refused and changes nothing', async () => {
      const page = as('admin');
      await page.goto(url('/backoffice/templates/savings_fees/versions/new'));
      await page.getByLabel('Tag').fill('1.0');
      await page.getByLabel('Content (HTML)').fill(english);
      await page.getByRole('button', { name: 'Save as draft' }).click();
      await expect.poll(() => page.getByRole('status').textContent()).toContain('Draft saved');
      draftPath = new URL(page.url()).pathname;
      const tabs = page.getByRole('navigation', { name: 'Locales' });
      for (const text of [thai, '<p>A second Thai text</p>']) {
        await tabs.getByRole('link', { name: 'Add a locale' }).click();
        await page.getByLabel('Locale', { exact: true }).fill('th');
        await page.getByLabel('Content (HTML)').fill(text);
        await page.getByRole('button', { name: 'Save this locale' }).click();
        if (text === thai) {
          await expect
            .poll(() => page.getByRole('status').textContent())
            .toContain('Locale saved.');
        }
      }
      await expect
        .poll(() => main('admin'))
        .toContain(
          'This draft already has a th text: change it in its own tab. Adding a locale never replaces a text.',
        );
      await shot('admin', '01-locale-refused');
      await tabs.getByRole('link', { name: /Thai/ }).click();
      await expect.poll(() => main('admin')).toContain(sha256(thai));
    });

    it('the writer submits it; four eyes keeps the admin, who wrote it, from passing and approving it', async () => {
      const writer = as('writer');
      await writer.goto(url(draftPath));
      await writer.getByRole('button', { name: 'Submit for review…' }).click();
      await writer.getByRole('button', { name: 'Submit for review' }).click();
      await expect
        .poll(() => writer.getByRole('status').textContent())
        .toContain('Submitted for review.');

      const page = as('admin');
      await page.goto(url(`${draftPath}/review`));
      await expect
        .poll(() => main('admin'))
        .toContain('Four eyes: you wrote or changed its text, so someone else must review it.');
      expect(await page.getByRole('button', { name: 'Pass to approval' }).count()).toBe(0);
      await shot('admin', '02-four-eyes-review');
      // A form sent anyway (a page kept open, a crafted request) is refused by the server.
      const refused = page.waitForResponse((r) => r.url().endsWith('/pass'));
      await page.evaluate(() => {
        const { document } = globalThis as any;
        const form = document.querySelector('form.review-step');
        // The form's action is its first button's step (here Send back): send it to /pass.
        form.action = form.action.replace(/\/[^/]+$/, '/pass');
        form.submit();
      });
      expect((await refused).status()).toBe(403);

      const reviewer = as('reviewer');
      await reviewer.goto(url(`${draftPath}/review`));
      await reviewer.getByRole('button', { name: 'Pass to approval' }).click();
      await expect
        .poll(() => reviewer.getByRole('status').textContent())
        .toContain('Review passed');

      await page.goto(url(`${draftPath}/review`));
      await expect
        .poll(() => main('admin'))
        .toContain('Four eyes: you wrote or changed its text, so someone else must approve it.');
      expect(await page.getByRole('button', { name: /Approve and publish/ }).count()).toBe(0);
      await shot('admin', '03-four-eyes-approval');
    });

    it('Enter in an empty "Goes live at" publishes nothing; ticking "publish at once" does', async () => {
      const approver = as('approver');
      await approver.goto(url(`${draftPath}/review`));
      await approver.getByLabel(/Goes live at/).press('Enter');
      await expect
        .poll(() => main('approver'))
        .toContain(
          'Give a go-live time, or tick "Publish at once" to publish now: an empty time alone publishes nothing.',
        );
      await shot('approver', '04-publish-needs-confirming');
      await approver.getByLabel('Or publish at once, with no go-live time').check();
      await approver.getByRole('button', { name: 'Approve and publish version 1' }).click();
      await expect
        .poll(() => approver.getByRole('status').textContent())
        .toContain('Version published');
    });

    it('the timeline names who created the draft and each change, with locale and hashes', async () => {
      const page = as('approver');
      await page.goto(url(draftPath));
      const timeline = page.locator('.timeline');
      await expect.poll(() => timeline.textContent()).toContain('Published as version 1');
      const text = ((await timeline.textContent()) ?? '').replace(/\s+/g, ' ');
      const order = [
        `Draft created by Administrator (${admin.email})`,
        `en: SHA-256 ${sha256(english)}`,
        `Locale added (Thai) by Administrator (${admin.email})`,
        `th: SHA-256 ${sha256(thai)}`,
        `Submitted for review by ${team.writer.name} (${team.writer.email})`,
        `Review passed by ${team.reviewer.name}`,
        `Approved by ${team.approver.name}`,
      ];
      let at = 0;
      for (const words of order) {
        const found = text.indexOf(words, at);
        expect(found, `${words} in ${text}`).toBeGreaterThanOrEqual(at);
        at = found + words.length;
      }
      await shot('approver', '05-timeline');
    });

    it('the next draft starts with both locales of 1.0', async () => {
      const writer = as('writer');
      await writer.goto(url('/backoffice/templates/savings_fees/versions/new'));
      await expect
        .poll(() => main('writer'))
        .toContain(
          'It starts from version 1 (tag 1.0). Its other locale is carried over when you save: Thai th',
        );
      expect(await writer.getByLabel('Tag').inputValue()).toBe('1.1');
      await shot('writer', '06-new-draft-carries-locales');
      await writer.getByRole('button', { name: 'Save as draft' }).click();
      await expect.poll(() => writer.getByRole('status').textContent()).toContain('Draft saved');
      const tabs = writer.getByRole('navigation', { name: 'Locales' });
      await expect.poll(() => tabs.textContent()).toMatch(/English en\s*Thai th\s*Add a locale/);
      await tabs.getByRole('link', { name: /Thai/ }).click();
      await expect.poll(() => main('writer')).toContain(sha256(thai));
      await shot('writer', '07-carried-thai');
      // The refusals above (the locale's 400, the crafted pass's 403) are the only errors.
      const unexpected = problems
        .flat()
        .filter((p) => !/status of (400 \(Bad Request\)|403 \(Forbidden\))/.test(p));
      expect(unexpected).toEqual([]);
    });
  });
});
