import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capture, launchChromium, signInAs, watch } from '../backoffice/browser.js';
import { appCode } from '../helpers/authenticator.js';
import {
  callServer,
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

const admin = {
  email: 'lead@acme.example',
  password: 'acme lead password 1',
  name: 'Administrator',
};
const team = {
  editor: {
    name: 'Edith Writer',
    email: 'edith@acme.example',
    password: 'quiet harbour lantern 42',
    // An editor who may also approve: four eyes keeps her from approving her own version.
    roles: ['Editor', 'Approver'],
  },
  reviewer: {
    name: 'Ravi Checker',
    email: 'ravi@acme.example',
    password: 'amber violin meadow 17',
    roles: ['Reviewer'],
  },
  approver: {
    name: 'Aino Signer',
    email: 'aino@acme.example',
    password: 'copper glacier whisper 63',
    roles: ['Approver'],
  },
} as const;
type Member = keyof typeof team;

/**
 * A team at work in Chromium, on the real server with a real SMTP listener: the admin invites an
 * editor, a reviewer and an approver, who set their passwords from the e-mailed links (the
 * reviewer also turns on two-factor sign-in); a version goes through review (sent back once) to
 * approval, and the audit log, filtered by person, shows who took each step.
 */
describe.each(journey)(
  'a team reviews and approves a version in Chromium, on $name',
  (testStore) => {
    describe.sequential('invitations, review, approval, audit', { timeout: budget(60_000) }, () => {
      let store: TempStore;
      let server: ServerProcess;
      let smtp: SmtpListener;
      let browser: Browser;
      const pages = new Map<Member | 'admin', Page>();
      const problems: string[][] = [];
      let apiKey = '';
      let totpSecret = '';
      const url = (path: string) => `${server.baseUrl}${path}`;
      const as = (who: Member | 'admin') => pages.get(who) as Page;
      const shot = (who: Member | 'admin', name: string) =>
        capture(as(who), `team-${testStore.name}-${name}`);
      const status = (page: Page) => page.getByRole('status').textContent();

      async function newPage(who: Member | 'admin'): Promise<Page> {
        const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
        const page = await context.newPage();
        page.setDefaultTimeout(budget(5_000));
        problems.push(watch(page).problems);
        pages.set(who, page);
        return page;
      }

      const signIn = (page: Page, email: string, password: string) =>
        signInAs(page, server.baseUrl, email, password);

      const cli = (...args: string[]) => runCli(args, server.env).then(expectJsonObject);

      beforeAll(async () => {
        smtp = await startSmtpServer();
        store = await makeTempStore(testStore);
        server = await startServer({
          store,
          env: { SMTP_URL: smtp.url, MAIL_FROM: 'Acme consent <consent@acme.example>' },
        });
        await cli(
          'tenant',
          'create',
          '--alias',
          'acme',
          '--email',
          admin.email,
          '--password',
          admin.password,
        );
        await cli(
          'template',
          'create',
          '--tenant',
          'acme',
          '--code',
          'privacy_policy',
          '--name',
          'Privacy policy',
        );
        const v1 = await cli(
          'version',
          'publish',
          '--tenant',
          'acme',
          '--template',
          'privacy_policy',
          '--tag',
          '1.0',
          '--content',
          '<h1>Privacy</h1><p>We keep your e-mail address.</p>',
        );
        apiKey = String((await cli('apikey', 'create', '--tenant', 'acme', '--name', 'shop')).key);
        // Two customers decide on 1.0: approving 2.0 makes them pending.
        for (const customer of ['alice', 'bob']) {
          const decided = await callServer(
            server,
            { 'x-system-api-key': apiKey, 'content-type': 'application/json' },
            `/api/v1/customers/${customer}/consents/decisions`,
            {
              method: 'POST',
              body: JSON.stringify({
                consent_version_id: v1.consent_version_id,
                decision: 'given',
              }),
            },
          );
          expect(decided.status).toBe(201);
        }
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

      it('the admin invites three people; each sets a password from the e-mailed link, and the reviewer turns on two-factor sign-in', async () => {
        const page = await newPage('admin');
        await signIn(page, admin.email, admin.password);
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
        await page.goto(url('/backoffice/users'));
        await shot('admin', '01-team');

        for (const [who, member] of Object.entries(team) as Array<
          [Member, (typeof team)[Member]]
        >) {
          const mail = await smtp.next((m) => m.to.includes(member.email));
          const link =
            /http:\/\/127\.0\.0\.1:\d+\/backoffice\/password\?token=[A-Za-z0-9_-]{43}/.exec(
              mail.text,
            )?.[0];
          expect(link, mail.text).toBeDefined();
          const own = await newPage(who);
          await own.goto(link as string);
          if (who === 'editor') await shot('editor', '02-set-password');
          await own.getByLabel('New password', { exact: true }).fill(member.password);
          await own.getByLabel('New password again').fill(member.password);
          await own.getByRole('button', { name: 'Set the password' }).click();
          await own.waitForURL(/\/backoffice\/sign-in/);
          await signIn(own, member.email, member.password);
          await own.waitForURL(url('/backoffice/dashboard'));
        }

        const reviewer = as('reviewer');
        await reviewer.goto(url('/backoffice/account/two-factor'));
        await reviewer.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
        await shot('reviewer', '03-two-factor-setup');
        totpSecret = ((await reviewer.locator('#totp-secret').textContent()) ?? '').replace(
          /\s/g,
          '',
        );
        expect(totpSecret).toMatch(/^[A-Z2-7]{32}$/);
        await reviewer.getByRole('textbox', { name: 'Code' }).fill(appCode(totpSecret));
        await reviewer.getByRole('button', { name: 'Turn on' }).click();
        await expect.poll(() => reviewer.locator('#recovery-codes li').count()).toBe(10);
        await shot('reviewer', '04-recovery-codes');
        const recoveryCode =
          (await reviewer.locator('#recovery-codes li').first().textContent()) ?? '';
        // From now on the reviewer's sign-in asks for a code as well. The app's code of this
        // time step was spent on the enrolment (a code works once): a recovery code signs in.
        await reviewer.getByText('Account', { exact: true }).click();
        await reviewer.getByRole('button', { name: 'Sign out' }).click();
        await reviewer.waitForURL(url('/backoffice/sign-in?notice=signed-out'));
        await signIn(reviewer, team.reviewer.email, team.reviewer.password);
        await reviewer.waitForURL(url('/backoffice/sign-in/code'));
        await shot('reviewer', '05-sign-in-code');
        await reviewer.getByRole('textbox', { name: 'Code' }).fill(recoveryCode);
        await reviewer.getByRole('button', { name: 'Sign in' }).click();
        await reviewer.waitForURL(url('/backoffice/dashboard'));
      });

      it('the editor submits 2.0; the reviewer sends it back with a comment; the editor fixes and resubmits; the reviewer passes it', async () => {
        const editor = as('editor');
        await editor.goto(url('/backoffice/templates/privacy_policy/versions/new'));
        await editor.getByLabel('Tag').fill('2.0');
        await editor
          .getByLabel('Content (HTML)')
          .fill('<h1>Privacy</h1><p>We keep your e-mail address and phone number.</p>');
        await editor.getByRole('button', { name: 'Save as draft' }).click();
        await editor.getByRole('button', { name: 'Submit for review…' }).click();
        await shot('editor', '06-submit');
        await editor.getByLabel('Note for the reviewer (optional)').fill('Adds phone numbers.');
        await editor.getByRole('button', { name: 'Submit for review' }).click();
        await expect.poll(() => status(editor)).toContain('Submitted for review.');

        const reviewer = as('reviewer');
        await reviewer.goto(url('/backoffice/dashboard'));
        const waiting = reviewer.locator('section', { hasText: 'Waiting for you' });
        await expect.poll(() => waiting.textContent()).toContain('your review');
        await shot('reviewer', '07-waiting-for-review');
        await waiting.getByRole('link', { name: '2.0' }).click();
        await reviewer
          .getByLabel('Comment (required to send it back)')
          .fill('Say why we keep the number.');
        await shot('reviewer', '08-review');
        await reviewer.getByRole('button', { name: 'Send back to draft' }).click();
        await expect.poll(() => status(reviewer)).toContain('Sent back to draft');
        await shot('reviewer', '09-sent-back');

        // The editor hears of it by e-mail and on the dashboard, edits and submits again.
        const mail = await smtp.next(
          (m) => m.to.includes(team.editor.email) && m.subject.startsWith('Sent back'),
        );
        expect(mail.text).toContain('Say why we keep the number.');
        await editor.goto(url('/backoffice/dashboard'));
        const own = editor.locator('section', { hasText: 'Waiting for you' });
        await expect.poll(() => own.textContent()).toContain('changes: it was sent back');
        await own.getByRole('link', { name: '2.0' }).click();
        await shot('editor', '10-sent-back-draft');
        await expect
          .poll(() => editor.locator('.timeline').textContent())
          .toContain('Say why we keep the number.');
        await editor
          .getByLabel('Content (HTML)')
          .fill(
            '<h1>Privacy</h1><p>We keep your e-mail address and phone number to call you back.</p>',
          );
        await editor.getByRole('button', { name: 'Save draft' }).click();
        await expect.poll(() => status(editor)).toBe('Draft saved.');
        await editor.getByRole('button', { name: 'Submit for review…' }).click();
        await editor.getByRole('button', { name: 'Submit for review' }).click();
        await expect.poll(() => status(editor)).toContain('Submitted for review.');

        await reviewer.goto(url('/backoffice/dashboard'));
        await waiting.getByRole('link', { name: '2.0' }).click();
        await reviewer.getByRole('button', { name: 'Pass to approval' }).click();
        await expect.poll(() => status(reviewer)).toContain('Review passed');
      });

      it('the editor may approve, but not her own version; the approver sees the diff and the impact, approves, and the API answers 2.0', async () => {
        const editor = as('editor');
        await editor.reload();
        await expect
          .poll(() => editor.locator('main').textContent())
          .toContain('Four eyes: you submitted this version, so someone else must approve it.');
        expect(await editor.getByRole('button', { name: /Approve and publish/ }).count()).toBe(0);
        await shot('editor', '12-four-eyes');
        // Were she to send the approval anyway (a page kept open from before, a crafted form),
        // the server refuses it.
        const refused = editor.waitForResponse((r) => r.url().endsWith('/approve'));
        await editor.evaluate(() => {
          const { document } = globalThis as any;
          const form = document.querySelector('form.review-step');
          form.querySelector('[name=publish_now]').checked = true;
          // The form's action is its first button's step (here Reject): send it to /approve.
          form.action = form.action.replace(/\/[^/]+$/, '/approve');
          form.submit();
        });
        expect((await refused).status()).toBe(403);
        await expect
          .poll(() => editor.locator('main').textContent())
          .toContain('Four eyes: you submitted this version, so someone else must approve it.');
        await shot('editor', '13-own-approval-refused');

        const approver = as('approver');
        await approver.goto(url('/backoffice/dashboard'));
        const waiting = approver.locator('section', { hasText: 'Waiting for you' });
        await expect.poll(() => waiting.textContent()).toContain('your approval');
        await waiting.getByRole('link', { name: '2.0' }).click();
        await expect
          .poll(() => approver.locator('.consequence').textContent())
          .toContain(
            '2 customers decided on the current latest version (1, tag 1.0) and will become pending',
          );
        expect(await approver.locator('.diff ins').textContent()).toContain(
          'and phone number to call you back',
        );
        expect(await approver.locator('main').textContent()).toContain(
          'allowed: a customer who decided on this version can decide again',
        );
        await shot('approver', '11-approval');
        await approver.getByLabel('Or publish at once, with no go-live time').check();
        await approver.getByRole('button', { name: 'Approve and publish version 2' }).click();
        await expect.poll(() => status(approver)).toContain('Version published');
        await shot('approver', '14-published');
        await approver.getByRole('link', { name: 'View 2.0' }).click();
        await expect
          .poll(() => approver.locator('.timeline').textContent())
          .toContain('Published as version 2');
        await shot('approver', '15-timeline');

        const latest = await callServer(
          server,
          { 'x-system-api-key': apiKey },
          '/api/v1/consent-templates/privacy_policy/latest',
        );
        expect(
          ((await latest.json()) as { data: { tag: string; version: number } }).data,
        ).toMatchObject({
          tag: '2.0',
          version: 2,
        });
        const published = await smtp.next(
          (m) => m.to.includes(team.editor.email) && m.subject.startsWith('Published'),
        );
        expect(published.text).toContain(
          'Aino Signer (aino@acme.example) approved and published tag 2.0',
        );
      });

      it('the audit log, filtered by each person, shows the steps they took', async () => {
        const page = as('admin');
        const stepsBy = async (member: (typeof team)[Member]) => {
          await page.goto(url('/backoffice/audit'));
          await page.getByLabel('Who').selectOption(member.email);
          await page.getByRole('button', { name: 'Filter' }).click();
          await page.waitForURL(/actor=/);
          return page.locator('tbody').textContent();
        };
        const byEditor = (await stepsBy(team.editor)) ?? '';
        expect(byEditor.match(/version\.submitted/g)).toHaveLength(2);
        expect(byEditor).toContain('version.draft_updated');
        expect(byEditor).not.toContain('version.approved');
        const byReviewer = (await stepsBy(team.reviewer)) ?? '';
        expect(byReviewer).toContain('version.sent_back');
        expect(byReviewer).toContain('version.review_passed');
        expect(byReviewer).toContain('two_factor.enabled');
        const byApprover = (await stepsBy(team.approver)) ?? '';
        expect(byApprover).toContain('version.approved');
        expect(byApprover).toContain('version.published');
        expect(byApprover).not.toContain('version.review_passed');
        await shot('admin', '16-audit-by-approver');
        // The one refusal the browser reports is the editor's own approval, refused above.
        expect(problems.flat()).toEqual([
          'error: Failed to load resource: the server responded with a status of 403 (Forbidden)',
        ]);
      });
    });
  },
);
