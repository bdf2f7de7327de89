import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capture, launchChromium, signInAs, watch } from '../backoffice/browser.js';
import { publishedTag } from '../helpers/cookies.js';
import {
  callServer,
  expectJsonObject,
  makeTempStore,
  runCli,
  type ServerProcess,
  startServer,
  type TempStore,
} from '../helpers/process.js';
import { journeyStore } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';

/** The heading the banner shows in the preview frame of this name, once it shows one. */
function previewHeading(page: Page, name: string): Promise<string | null> {
  return page
    .frameLocator(`iframe[title="Banner preview: ${name}"]`)
    .getByRole('dialog')
    .getByRole('heading')
    .textContent({ timeout: budget(1_000) })
    .catch(() => null);
}

/** The width of the preview frame of this name, as its own page measures it. */
async function previewWidth(page: Page, name: string): Promise<number | undefined> {
  const frame = await page.locator(`iframe[title="Banner preview: ${name}"]`).elementHandle();
  return (await frame?.contentFrame())?.evaluate(() => (globalThis as any).innerWidth as number);
}

/** This journey's store (see `journeyStore`). */
const journey = journeyStore('sqlite');

const admin = { email: 'head@bank.example', password: 'bank head password 1' };
const team = {
  writer: {
    name: 'Wren Writer',
    email: 'wren@bank.example',
    password: 'silver kettle orchard 51',
    // A writer who may also approve: only four eyes keeps her from approving her own banner.
    roles: ['Editor', 'Approver'],
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
const origin = 'https://www.bank.example';

/**
 * A bank's cookie banner in Chromium: the admin adds the website as a system; a writer makes a
 * banner, edits its texts and submits it; a reviewer passes it; the writer, who may approve, is
 * shown no Approve button (four eyes); an approver approves and publishes it, and the page shows
 * the script tag to paste. A visitor's choice then shows on the decisions page and the
 * dashboard, and the admin erases that visitor on their request. Every page on the way is
 * checked at both widths with axe (`capture`).
 */
describe.each(journey)(
  'a cookie banner from system to script tag in Chromium, on $name',
  (testStore) => {
    describe.sequential('system, banner, review, four eyes, approval, tag, erasure', {
      timeout: budget(60_000),
    }, () => {
      let store: TempStore;
      let server: ServerProcess;
      let browser: Browser;
      const pages = new Map<Member | 'admin', Page>();
      const problems: string[][] = [];
      let configurationPath = '';
      let scope = '';
      const visitorId = crypto.randomUUID();
      const url = (path: string) => `${server.baseUrl}${path}`;
      const as = (who: Member | 'admin') => pages.get(who) as Page;
      const shot = (who: Member | 'admin', name: string) =>
        capture(as(who), `cookies-${testStore.name}-${name}`);
      const main = (who: Member | 'admin') => as(who).locator('main').textContent();

      async function newPage(who: Member | 'admin'): Promise<Page> {
        const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
        const page = await context.newPage();
        page.setDefaultTimeout(budget(5_000));
        problems.push(watch(page).problems);
        pages.set(who, page);
        return page;
      }

      beforeAll(async () => {
        store = await makeTempStore(testStore);
        server = await startServer({ store });
        expectJsonObject(
          await runCli(
            [
              'tenant',
              'create',
              '--alias',
              'bank',
              '--email',
              admin.email,
              '--password',
              admin.password,
            ],
            server.env,
          ),
        );
        browser = await launchChromium();
      });

      afterAll(async () => {
        await browser?.close();
        try {
          await server?.stop(budget(10_000));
        } finally {
          await store?.remove();
        }
      });

      it('the admin invites a writer, a reviewer and an approver, who set their passwords', async () => {
        const page = await newPage('admin');
        await signInAs(page, server.baseUrl, admin.email, admin.password);
        await page.waitForURL(url('/backoffice/dashboard'));
        for (const [who, member] of Object.entries(team) as Array<
          [Member, (typeof team)[Member]]
        >) {
          await page.goto(url('/backoffice/users/new'));
          await page.getByLabel('Name').fill(member.name);
          await page.getByLabel('E-mail').fill(member.email);
          for (const role of member.roles) {
            await page.getByRole('checkbox', { name: new RegExp(`^${role}\\b`) }).check();
          }
          await page.getByRole('button', { name: 'Invite' }).click();
          const link = (await page.locator('#link-once').textContent())?.trim() ?? '';
          expect(link).toMatch(/\/backoffice\/password\?token=[A-Za-z0-9_-]{43}$/);
          const own = await newPage(who);
          await own.goto(link);
          await own.getByLabel('New password', { exact: true }).fill(member.password);
          await own.getByLabel('New password again').fill(member.password);
          await own.getByRole('button', { name: 'Set the password' }).click();
          await own.waitForURL(/\/backoffice\/sign-in/);
          await signInAs(own, server.baseUrl, member.email, member.password);
          await own.waitForURL(url('/backoffice/dashboard'));
        }
      });

      it('the admin adds the website as a system', async () => {
        const page = as('admin');
        await page.goto(url('/backoffice/dashboard'));
        await page
          .getByRole('navigation', { name: 'Main' })
          .getByRole('link', { name: 'Cookies' })
          .click();
        await expect.poll(() => main('admin')).toContain('first add a system');
        await shot('admin', '01-cookies-empty');
        await page
          .getByRole('navigation', { name: 'Cookies' })
          .getByRole('link', { name: 'Systems' })
          .click();
        await page.getByRole('button', { name: 'New system' }).click();
        await shot('admin', '02-new-system');
        await page.getByLabel('Name').fill('Bank website');
        await page.getByLabel('Origins, one a line').fill(`${origin}\nhttps://bank.example`);
        await page.getByRole('button', { name: 'Add system' }).click();
        await expect.poll(() => page.getByRole('status').textContent()).toContain('System added.');
        scope = /cs_[0-9a-f]{20}/.exec(page.url())?.[0] ?? '';
        expect(scope).not.toBe('');
        await shot('admin', '03-system');
        await page.goto(url('/backoffice/cookies/systems'));
        await expect.poll(() => main('admin')).toContain(scope);
        await shot('admin', '04-systems');
      });

      it('the writer makes a banner, changes its title and submits it', async () => {
        const page = as('writer');
        await page.goto(url('/backoffice/cookies'));
        await page.getByRole('button', { name: 'New configuration' }).click();
        await shot('writer', '05-new-configuration');
        await page.getByLabel('Name').fill('Website banner');
        await page.getByRole('checkbox', { name: 'Personalization' }).uncheck();
        await page.getByRole('button', { name: 'Create draft' }).click();
        await expect
          .poll(() => page.getByRole('status').textContent())
          .toContain('Configuration created as a draft.');
        configurationPath = new URL(page.url()).pathname;
        await page.getByRole('button', { name: 'Edit the draft' }).click();
        await shot('writer', '06-editor');
        await page.getByLabel('Title (en)').fill('Cookies at the bank');
        await page.getByLabel('Lifetime of a choice, in days').fill('180');
        await page.getByRole('button', { name: 'Save the draft' }).click();
        await expect.poll(() => page.getByRole('status').textContent()).toContain('Draft saved.');
        await expect.poll(() => main('writer')).toContain('180 days');
        await page.getByLabel('Note for the reviewer (optional)').fill('Our first banner');
        await page.getByRole('button', { name: 'Submit for review' }).click();
        await expect
          .poll(() => page.getByRole('status').textContent())
          .toContain('Submitted for review.');
        await shot('writer', '07-submitted');
      });

      it("the writer's draft and the reviewer's page preview the banner: each locale, both layers, a phone's and a desktop's width", async () => {
        const writer = as('writer');
        await writer.goto(url(configurationPath));
        await expect
          .poll(() => previewHeading(writer, 'First layer, English (en), phone width (390 px)'))
          .toBe('Cookies at the bank');
        const page = as('reviewer');
        await page.goto(url(configurationPath));
        expect(await page.locator('iframe[title^="Banner preview: "]').count()).toBe(8);
        for (const [locale, title, panel] of [
          ['English (en)', 'Cookies at the bank', 'Cookie preferences'],
          ['Thai (th)', 'เราใช้คุกกี้', 'การตั้งค่าคุกกี้'],
        ] as const) {
          for (const [width, pixels] of [
            ['phone', 390],
            ['desktop', 1280],
          ] as const) {
            const first = `First layer, ${locale}, ${width} width (${pixels} px)`;
            const preferences = `Preferences, ${locale}, ${width} width (${pixels} px)`;
            await expect.poll(() => previewHeading(page, first)).toBe(title);
            await expect.poll(() => previewHeading(page, preferences)).toBe(panel);
            // The frame is the width it says: the banner lays itself out for that screen.
            expect(await previewWidth(page, first)).toBe(pixels);
          }
        }
        await shot('reviewer', '07b-preview');
        expect(problems.flat()).toEqual([]);
      });

      it('the reviewer passes it; the writer, who may approve, is shown no Approve button', async () => {
        const reviewer = as('reviewer');
        await reviewer.goto(url(configurationPath));
        await reviewer.getByRole('button', { name: 'Pass to approval' }).click();
        await expect
          .poll(() => reviewer.getByRole('status').textContent())
          .toContain('Review passed');
        const writer = as('writer');
        await writer.goto(url(configurationPath));
        await expect
          .poll(() => main('writer'))
          .toContain(
            'Four eyes: you submitted this configuration, so someone else must approve it.',
          );
        expect(await writer.getByRole('button', { name: 'Approve' }).count()).toBe(0);
        expect(await writer.getByRole('button', { name: 'Reject' }).count()).toBe(1);
        await shot('writer', '08-four-eyes');
      });

      it('the approver approves and publishes it, and the page shows the script tag to copy', async () => {
        const page = as('approver');
        await page.goto(url(configurationPath));
        await page.getByLabel('And publish it now').check();
        await page.getByRole('button', { name: 'Approve' }).click();
        await expect
          .poll(() => page.getByRole('status').textContent())
          .toContain('Published: the banner script serves it within a second.');
        const tag = page.getByRole('textbox', { name: 'Script tag' });
        await expect.poll(() => tag.inputValue()).toBe(publishedTag(server.baseUrl, scope));
        expect(await tag.getAttribute('readonly')).not.toBeNull();
        // The back-office's script shows the copy button (hidden for a page without scripts).
        await expect.poll(() => page.getByRole('button', { name: 'Copy' }).isVisible()).toBe(true);
        const timeline = await page.getByRole('list', { name: 'Timeline' }).textContent();
        for (const step of [
          `Created by ${team.writer.email}`,
          `Submitted for review by ${team.writer.email}`,
          `Review passed by ${team.reviewer.email}`,
          `Approved by ${team.approver.email}`,
          `Published by ${team.approver.email}`,
        ]) {
          expect(timeline?.replace(/\s+/g, ' ')).toContain(step);
        }
        await shot('approver', '09-published');
      });

      it('Accept all in a preview of the published banner records nothing, sets no cookie and breaks no policy', async () => {
        const page = as('approver');
        await page.goto(url(configurationPath));
        const frame = page.frameLocator(
          'iframe[title="Banner preview: First layer, English (en), phone width (390 px)"]',
        );
        // The preview's frame is sandboxed without its page's origin, so Chromium may run it in a
        // process of its own; a click that arrives before that frame's hit-test data reaches the
        // page, on a busy machine, is delivered to the page instead. The click is sent again until
        // the frame took it: what is checked is what taking it does, not the first try's luck.
        const acceptAll = frame.getByRole('button', { name: 'Accept all' });
        await expect
          .poll(async () => {
            if ((await acceptAll.count()) > 0) await acceptAll.click({ timeout: budget(1_000) });
            return frame.getByRole('dialog').count();
          })
          .toBe(0);
        const listed = await runCli(
          ['cookie', 'decisions', '--tenant', 'bank', '--system', scope],
          server.env,
        );
        expect(listed.code, listed.stderr).toBe(0);
        expect(listed.stdout.trim()).toBe('');
        const cookies = await page.context().cookies(server.baseUrl);
        expect(cookies.map((c) => c.name).filter((name) => name.startsWith('consentrix'))).toEqual(
          [],
        );
        expect(problems.flat()).toEqual([]);
      });

      it("a visitor's choice shows on the decisions page and the dashboard", async () => {
        const id = configurationPath.split('/').pop() ?? '';
        const recorded = await callServer(server, {}, `/cookies/v1/${scope}/decisions`, {
          method: 'POST',
          headers: { origin, 'content-type': 'text/plain;charset=UTF-8' },
          body: JSON.stringify({
            event_id: crypto.randomUUID(),
            visitor_id: visitorId,
            configuration_id: id,
            configuration_version: 1,
            method: 'reject-all',
            categories: { necessary: true, analytics: false, marketing: false, functional: false },
            locale: 'en',
          }),
        });
        expect(recorded.status).toBe(201);
        const page = as('admin');
        await page.goto(url('/backoffice/cookies/decisions'));
        await expect.poll(() => main('admin')).toContain('Reject all');
        await shot('admin', '10-decisions');
        await page.goto(url('/backoffice/dashboard'));
        const rates = page.getByRole('region', { name: 'Cookie choices per system' });
        const row = rates.getByRole('row', { name: /Bank website/ });
        await expect
          .poll(() => row.getByRole('cell').allTextContents())
          .toEqual(['1 choice', '0% (0)', '100% (1)', '0% (0)', '0% (0)']);
        await shot('admin', '11-dashboard');
        // The system's analytics: today's choice, by day and by region, with the chart.
        await page.goto(url(`/backoffice/cookies/systems/${scope}`));
        await page.getByRole('link', { name: 'Analytics' }).click();
        const byRegion = page.getByRole('region', { name: 'Region' });
        await expect
          .poll(() => byRegion.getByRole('row').nth(1).getByRole('cell').allTextContents())
          .toEqual([
            'Unknown',
            '1',
            '0',
            '1',
            '0',
            '0',
            '0.0% (0.0% to 79.3%)',
            '0.0% (0.0% to 79.3%)',
            '0.0% (0.0% to 79.3%)',
          ]);
        expect(await page.getByRole('img', { name: /Choices a day/ }).count()).toBe(1);
        await shot('admin', '11b-analytics');
        // The tenant's own classification for the scanner: one cookie prefix, added by the form.
        await page.goto(url('/backoffice/cookies/systems'));
        await page
          .getByRole('navigation', { name: 'Cookies' })
          .getByRole('link', { name: 'Classification' })
          .click();
        await page.getByLabel('Name or host').fill('_ga*');
        await page.getByLabel('Category', { exact: true }).fill('analytics');
        await page.getByRole('button', { name: 'Save' }).click();
        await expect
          .poll(() => page.getByRole('status').textContent())
          .toContain('Classification saved');
        await expect.poll(() => main('admin')).toContain('_ga* (cookie)');
        await shot('admin', '11c-classification');
        await page.goto(url('/backoffice/settings'));
        await expect
          .poll(() =>
            page.getByLabel("How a cookie choice keeps the visitor's address").inputValue(),
          )
          .toBe('truncated');
        await shot('admin', '12-settings');
        expect(problems.flat()).toEqual([]);
      });

      it('the admin erases that visitor on their request: the choice stays, without whose it was', async () => {
        const page = as('admin');
        await page.goto(url('/backoffice/cookies/decisions'));
        await page.getByRole('link', { name: 'Erase a visitor…' }).click();
        await page.getByLabel('Visitor id').fill(visitorId);
        await shot('admin', '13-erase-visitor');
        await page.getByRole('button', { name: 'Continue' }).click();
        await expect
          .poll(() => main('admin'))
          .toContain('The tenant keeps 1 cookie choice of this visitor.');
        await shot('admin', '14-erase-visitor-confirm');
        await page.getByRole('checkbox', { name: /^Yes, erase visitor/ }).check();
        await page.getByRole('button', { name: 'Erase for good' }).click();
        await expect
          .poll(async () => (await page.getByRole('status').textContent())?.replace(/\s+/g, ' '))
          .toContain(
            `Visitor ${visitorId} was erased: 1 cookie choice keeps its leaf in the decision log and its receipt, without the visitor id, address or user agent.`,
          );
        await shot('admin', '15-visitor-erased');
        const listed = await runCli(
          ['cookie', 'decisions', '--tenant', 'bank', '--system', scope],
          server.env,
        );
        expect(listed.code, listed.stderr).toBe(0);
        const lines = listed.stdout.trim().split('\n');
        expect(lines).toHaveLength(1);
        expect(JSON.parse(lines[0] ?? '')).toMatchObject({
          method: 'reject-all',
          visitor_id: null,
          ip: null,
          user_agent: null,
        });
        expect(problems.flat()).toEqual([]);
      });
    });
  },
);
