/**
 * A system's scans in the back-office: "Scan now" runs a real scan in Chromium in the background
 * (of a loopback site whose gtag.js runs before consent), its page shows the violation with the
 * script that caused it, the start is audited, a flagged scan queues `cookie_scan.flagged` and
 * e-mails the system's editors; a second scan while one runs is refused; the schedule is set,
 * audited and run by a pass (once per period); a user who may only view sees no forms.
 *
 * The scans' bookkeeping runs on both stores in test/cookie-scanner/scans.test.ts; this file runs
 * Chromium, so it runs on one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDueScans, scanRunner } from '../../src/cookie-scanner/index.js';
import { startTrackerSite, type TrackerSite } from '../cookie-scanner/tracker-site.js';
import type { TestApp } from '../helpers/app.js';
import { seedPublishedSystem } from '../helpers/cookies.js';
import { pollUntil } from '../helpers/process.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { type SmtpListener, startSmtpServer } from '../helpers/smtp.js';
import { journeyStore } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';
import { member } from './cookies-support.js';
import { type PageClient, signedIn, startBackofficeApp, textOf } from './support.js';

describe.each(journeyStore('sqlite'))('cookie scans in the back-office on $name', (store) => {
  describe.sequential('with a real scan', { timeout: budget(120_000) }, () => {
    let t: TestApp;
    let a: SeededTenant;
    let admin: PageClient;
    let smtp: SmtpListener;
    let site: TrackerSite;
    let scope = '';
    let systemName = '';

    beforeAll(async () => {
      smtp = await startSmtpServer();
      site = await startTrackerSite('https://consent.test');
      t = await startBackofficeApp(store, {
        SMTP_URL: smtp.url,
        COOKIE_SCAN_HOST_RULES: site.hostRules,
        COOKIE_SCAN_PAGE_TIMEOUT_MS: String(budget(10_000)),
        ...(process.env.CHROMIUM_PATH ? { CHROMIUM_PATH: process.env.CHROMIUM_PATH } : {}),
      });
      a = await seedTenant(t.db);
      admin = await signedIn(t.app, a.tenant.email);
      systemName = `Tea shop ${a.tenant.alias}`;
      ({ scope } = await seedPublishedSystem(t.db, a.tenant.id, {
        name: systemName,
        origins: [site.origin],
      }));
      site.embed(scope);
      site.leak(['gtag']);
    });
    afterAll(async () => {
      await t?.close();
      await site?.close();
      await smtp?.close();
    });

    const scansOf = () => `/backoffice/cookies/systems/${scope}/scans`;

    it('Scan now: the scan runs in the background; its page names the violation, the page, the phase and the script', async () => {
      const list = await admin.get(scansOf());
      expect(list.statusCode).toBe(200);
      expect(textOf(list.body)).toContain('No scan yet.');
      const started = await admin.post(scansOf(), { pages: '2' });
      expect(started.statusCode).toBe(303);
      const location = String(started.headers.location);
      expect(location).toMatch(
        new RegExp(`/backoffice/cookies/systems/${scope}/scans/[0-9a-f-]{36}$`),
      );

      // A second scan while this one runs: refused on the page, nothing started.
      const again = await admin.post(scansOf(), { pages: '2' });
      expect(again.statusCode).toBe(400);
      expect(textOf(again.body)).toContain(
        'A scan of this system is running: wait for it to finish.',
      );

      const done = await pollUntil(
        async () => {
          const page = await admin.get(location);
          return textOf(page.body).includes('The scan is running') ? undefined : page;
        },
        { timeoutMs: budget(90_000), intervalMs: 250 },
      );
      expect(done?.statusCode).toBe(200);
      const text = textOf(String(done?.body));
      expect(text).toContain('Status done');
      expect(text).toContain(
        `Cookie _ga analytics ${site.origin}/ Before any choice http://www.googletagmanager.com/gtag/js?id=G-FIXTURE1`,
      );
      expect(text).toContain(
        `Request to www.google-analytics.com analytics ${site.origin}/ Before any choice`,
      );
      // The banner of this app's address cannot load in the scan's browser: only before a choice.
      expect(text).toContain('The banner was not found on the first page');
      expect(text).toContain("The system's first scan: nothing to compare with.");

      const history = textOf((await admin.get(scansOf())).body);
      expect(history).toMatch(
        /Started By Status Violations Changes .* Back-office done [1-9]\d* 0/,
      );
    });

    it('the start is audited; the flagged scan queued cookie_scan.flagged and e-mailed the system’s editors', async () => {
      const audit = await t.db
        .selectFrom('audit_log')
        .select(['action', 'actor', 'target', 'details'])
        .where('tenant_id', '=', a.tenant.id)
        .where('action', '=', 'cookie_scan.started')
        .execute();
      expect(audit).toHaveLength(1);
      expect(audit[0]).toMatchObject({ actor: a.tenant.email, target: scope });
      expect(JSON.parse(String(audit[0]?.details))).toMatchObject({
        urls: [`${site.origin}/`],
        pages: 2,
      });

      const events = await t.db
        .selectFrom('webhook_events')
        .select(['type', 'data'])
        .where('tenant_id', '=', a.tenant.id)
        .where('type', '=', 'cookie_scan.flagged')
        .execute();
      expect(events).toHaveLength(1);
      const data = JSON.parse(String(events[0]?.data));
      expect(data).toMatchObject({ system: scope, trigger: 'back-office', new_cookies: [] });
      expect(data.violations).toContainEqual(
        expect.objectContaining({ kind: 'cookie', name: '_ga', phase: 'before-choice' }),
      );

      const mail = await smtp.next((m) => m.subject.startsWith('Cookie scan of'));
      expect(mail.to).toEqual([a.tenant.email]);
      expect(mail.subject).toBe(`Cookie scan of ${systemName}: violations found`);
      expect(mail.text).toContain(`The cookie scan of ${systemName} (${scope}) found:`);
      expect(mail.text).toMatch(
        /- \d+ violations?: a tracker that ran before a choice or after Reject all/,
      );
      expect(mail.text).toContain(
        `https://consent.test/backoffice/cookies/systems/${scope}/scans/${data.scan_id}`,
      );
    });

    it('the schedule: set weekly and audited; a pass scans once, and not again within the week; turned off', async () => {
      const set = await admin.post(`${scansOf()}/schedule`, {
        every_days: '7',
        schedule_pages: '1',
      });
      expect(set.statusCode).toBe(303);
      const page = textOf((await admin.get(String(set.headers.location))).body);
      expect(page).toContain('Schedule saved: the first scan runs within a few minutes.');
      expect(page).toContain('Every week, 1 page: the next scan is due');
      const errors: unknown[] = [];
      const runner = scanRunner(
        t.db,
        t.config.cookieScans,
        t.config.publicBaseUrl,
        { mailer: undefined, page: () => '' },
        (error) => errors.push(error),
      );
      expect(await runDueScans(t.db, runner, (e) => errors.push(e))).toBe(1);
      expect(errors).toEqual([]);
      // Taken for the week: a second pass now scans nothing.
      expect(await runDueScans(t.db, runner, (e) => errors.push(e))).toBe(0);
      const history = textOf((await admin.get(scansOf())).body);
      expect(history).toMatch(/Started By Status Violations Changes .* Schedule done/);
      const schedule = await t.db
        .selectFrom('cookie_scan_schedules')
        .select(['every_days', 'pages', 'next_at', 'updated_at'])
        .executeTakeFirstOrThrow();
      expect(schedule).toMatchObject({ every_days: 7, pages: 1 });
      expect(Date.parse(schedule.next_at) - Date.parse(schedule.updated_at)).toBeGreaterThanOrEqual(
        7 * 86_400_000,
      );
      const audited = await t.db
        .selectFrom('audit_log')
        .select('details')
        .where('action', '=', 'cookie_system.scan_scheduled')
        .execute();
      expect(audited.map((r) => JSON.parse(String(r.details)))).toEqual([
        { every_days: 7, pages: 1 },
      ]);

      const off = await admin.post(`${scansOf()}/schedule`, {
        every_days: '',
        schedule_pages: '10',
      });
      expect(textOf((await admin.get(String(off.headers.location))).body)).toContain(
        'Not scanned on a schedule.',
      );
      const bad = await admin.post(`${scansOf()}/schedule`, {
        every_days: '3',
        schedule_pages: '0',
      });
      expect(bad.statusCode).toBe(400);
      expect(textOf(bad.body)).toContain('Off, or one of the periods listed.');
      expect(textOf(bad.body)).toContain('A whole number of pages from 1 to 100.');
    });

    it('a user who may only view sees the history and no form; their POST is refused; an unknown scan is 404', async () => {
      const viewer = await member(t.app, t.db, a.tenant, 'viewer', ['reviewer']);
      const page = await viewer.page.get(scansOf());
      expect(page.statusCode).toBe(200);
      expect(page.body).not.toContain('Scan now');
      const refused = await viewer.page.post(scansOf(), { pages: '1' });
      expect(refused.statusCode).toBe(403);
      const unknown = await admin.get(`${scansOf()}/01900000-0000-7000-8000-000000000000`);
      expect(unknown.statusCode).toBe(404);
    });
  });
});
