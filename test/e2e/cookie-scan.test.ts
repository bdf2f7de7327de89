/**
 * The cookie scanner from end to end: the real `serve` (whose banner the site embeds), the
 * command line's `cookie scan` running a real Chromium over a fixture site on loopback with the
 * trackers real sites carry (test/cookie-scanner/tracker-site.ts), in three phases. A tag that
 * runs before consent fails the scan with exit 3 naming the cookie, page, phase and script; held,
 * it passes; pages that hang, leave, loop, download or never end are reported and bounded; one
 * scan of a system runs at a time; the browser sees none of the service's secrets.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTrackerSite, type TrackerSite } from '../cookie-scanner/tracker-site.js';
import {
  type CliResult,
  expectJsonObject,
  freePort,
  makeTempStore,
  type Provisioned,
  pollUntil,
  provision,
  runCli,
  runCliProcess,
  type ServerProcess,
  serverEnv,
  showResult,
  startServer,
  type TempStore,
  withStore,
} from '../helpers/process.js';
import { journeyStore } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';

type Json = Record<string, any>;

/** The environment of each Chromium process a scan runs (its home is a consent-scan- directory). */
function chromiumEnvironments(): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!/chrom/i.test(command)) continue;
      const env = readFileSync(`/proc/${pid}/environ`, 'utf8').replaceAll('\0', '\n');
      if (/^HOME=.*consent-scan-/m.test(env)) found.push(env);
    } catch {
      // The process ended while it was read.
    }
  }
  return found;
}

describe.each(journeyStore('sqlite'))(
  'cookie scan from the command line, on $name',
  (testStore) => {
    describe.sequential('against a fixture site in Chromium', { timeout: budget(240_000) }, () => {
      let store: TempStore;
      let server: ServerProcess;
      let p: Provisioned;
      let site: TrackerSite;
      let scope = '';
      let home = '';

      /** The service's settings, with the scan's browser sent to the fixture for the trackers. */
      const scanEnv = (extra: Record<string, string> = {}) => ({
        ...server.env,
        COOKIE_SCAN_HOST_RULES: site.hostRules,
        ...(process.env.CHROMIUM_PATH ? { CHROMIUM_PATH: process.env.CHROMIUM_PATH } : {}),
        ...extra,
      });
      const cli = (args: string[], extra: Record<string, string> = {}) =>
        runCli(args, scanEnv(extra), { cwd: store.dir, timeoutMs: budget(180_000) });
      const scan = (...args: string[]) =>
        cli(['cookie', 'scan', '--tenant', p.alias, '--system', scope, ...args]);
      const parsed = (result: CliResult): Json => JSON.parse(result.stdout);

      beforeAll(async () => {
        store = await makeTempStore(testStore);
        const port = await freePort();
        const env = serverEnv(store, port, 'warn');
        p = await provision(env);
        server = await startServer({ store, port, env });
        site = await startTrackerSite(server.baseUrl);
        const system = expectJsonObject(
          await cli([
            'cookie',
            'system',
            'create',
            '--tenant',
            p.alias,
            '--name',
            'Tea shop',
            '--origin',
            site.origin,
          ]),
        );
        scope = String(system.scope);
        site.embed(scope);
        expectJsonObject(
          await cli([
            'cookie',
            'create',
            '--tenant',
            p.alias,
            '--system',
            scope,
            '--name',
            'Banner',
            '--categories',
            'analytics,marketing,functional,personalization',
          ]),
        );
        expectJsonObject(await cli(['cookie', 'publish', '--tenant', p.alias, '--system', scope]));
        home = `${site.origin}/`;
      });
      afterAll(async () => {
        await site?.close();
        try {
          await server?.stop(budget(10_000));
        } finally {
          await store?.remove();
        }
      });

      it('a gtag.js that runs before consent: exit 3, naming _ga (analytics, Google), the page, the phase and the script, and the hit it sent', async () => {
        site.leak(['gtag']);
        const result = await scan('--pages', '3', '--fail-on-violation', '--json');
        expect(result.code, showResult(result)).toBe(3);
        expect(result.stderr).toMatch(/The scan found \d+ violations?\./);
        const out = parsed(result);
        expect(out.scan_id).toMatch(/^[0-9a-f-]{36}$/);
        expect(out.pages).toEqual([home, `${site.origin}/about`, `${site.origin}/video`]);
        expect(out.violations).toContainEqual({
          kind: 'cookie',
          name: '_ga',
          domain: '127.0.0.1',
          page: home,
          phase: 'before-choice',
          category: 'analytics',
          cause: 'http://www.googletagmanager.com/gtag/js?id=G-FIXTURE1',
        });
        expect(out.violations).toContainEqual({
          kind: 'request',
          host: 'www.google-analytics.com',
          page: home,
          phase: 'before-choice',
          category: 'analytics',
          cause: 'http://www.googletagmanager.com/gtag/js?id=G-FIXTURE1',
        });
        const ga = out.cookies.find((c: Json) => c.name === '_ga' && c.phase === 'before-choice');
        expect(ga).toMatchObject({
          name: '_ga',
          domain: '127.0.0.1',
          path: '/',
          category: 'analytics',
          provider: 'Google',
          platform: 'Google Analytics',
          classified_by: 'open-cookie-database',
        });
        // The tag asks for two years; Chromium keeps a cookie 400 days at most.
        const days = (Date.parse(ga.expires) - Date.parse(out.started_at)) / 86_400_000;
        expect(days).toBeGreaterThan(399);
        expect(days).toBeLessThanOrEqual(401);
        // Started by the command line (audited), and told: the webhooks' event is queued.
        const [audited, told] = await withStore(store, (db) =>
          Promise.all([
            db
              .selectFrom('audit_log')
              .select(['actor', 'target'])
              .where('action', '=', 'cookie_scan.started')
              .execute(),
            db
              .selectFrom('webhook_events')
              .select('data')
              .where('type', '=', 'cookie_scan.flagged')
              .execute(),
          ]),
        );
        expect(audited).toEqual([{ actor: 'command line', target: scope }]);
        expect(told.map((e) => JSON.parse(e.data).scan_id)).toEqual([out.scan_id]);
        // Only the leaked tag: the pixel and Hotjar stayed held before the choice.
        const before = out.violations.filter((v: Json) => v.phase === 'before-choice');
        expect(before.map((v: Json) => v.name ?? v.host).sort()).toEqual([
          '_ga',
          '_ga_FIXTURE1',
          'www.google-analytics.com',
        ]);
      });

      it('every tag held: exit 0 with --fail-on-violation; after Accept all the trackers run, classified, and after Reject all none does', async () => {
        site.leak([]);
        const result = await scan('--pages', '3', '--fail-on-violation', '--json');
        expect(result.code, showResult(result)).toBe(0);
        const out = parsed(result);
        expect(out.violations).toEqual([]);
        expect(out.choices).toEqual({ accept_all: true, reject_all: true });
        const names = (phase: string) =>
          out.cookies
            .filter((c: Json) => c.phase === phase)
            .map((c: Json) => c.name)
            .sort();
        expect(names('before-choice')).toEqual(['site_lang']);
        expect(names('accept-all')).toEqual(
          expect.arrayContaining(['_fbp', '_ga', '_ga_FIXTURE1', '_hjSessionUser_3412345']),
        );
        expect(names('reject-all')).not.toContain('_ga');
        const cookie = (name: string) =>
          out.cookies.find((c: Json) => c.name === name && c.phase === 'accept-all');
        expect(cookie('_fbp')).toMatchObject({ category: 'marketing', provider: 'Facebook' });
        expect(cookie('_hjSessionUser_3412345')).toMatchObject({
          category: 'functional',
          provider: 'Hotjar',
        });
        expect(out.cookies.find((c: Json) => c.name === 'site_lang')).toMatchObject({
          category: 'unclassified',
          cause: home,
        });
        const host = (name: string, phase: string) =>
          out.requests.find((r: Json) => r.host === name && r.phase === phase);
        expect(host('www.googletagmanager.com', 'before-choice')).toMatchObject({
          category: 'necessary',
          provider: 'Google',
        });
        expect(host('www.google-analytics.com', 'accept-all')).toMatchObject({
          category: 'analytics',
          provider: 'Google',
        });
        expect(host('www.facebook.com', 'accept-all')).toMatchObject({ category: 'marketing' });
        expect(host('www.youtube.com', 'accept-all')).toMatchObject({
          category: 'marketing',
          page: `${site.origin}/video`,
        });
        expect(host('www.google-analytics.com', 'reject-all')).toBeUndefined();
        expect(out.storage).toContainEqual(
          expect.objectContaining({
            area: 'local',
            key: '_hjSessionStorageTest',
            phase: 'accept-all',
          }),
        );
        // The scan before had the same cookies and hosts (the leak moved them between phases).
        expect(out.changes).toMatchObject({ new_cookies: [], new_hosts: [] });
        expect(out.changes.since).toMatch(/^[0-9a-f-]{36}$/);
      });

      it('pages that leave the origin, loop, download or never end are reported and bounded; the service answers all along; `cookie scans` keeps the history', async () => {
        site.misbehave(true);
        try {
          const result = await cli(
            ['cookie', 'scan', '--tenant', p.alias, '--system', scope, '--pages', '7', '--json'],
            { COOKIE_SCAN_PAGE_TIMEOUT_MS: String(budget(3_000)) },
          );
          expect(result.code, showResult(result)).toBe(0);
          const out = parsed(result);
          const reportOf = (path: string) =>
            out.page_reports.find(
              (r: Json) => r.url === `${site.origin}${path}` && r.phase === 'before-choice',
            );
          expect(reportOf('/huge')).toMatchObject({ outcome: 'timeout' });
          expect(reportOf('/away')).toMatchObject({
            outcome: 'left-origin',
            detail: 'it went to http://www.google-analytics.com/away, off the scanned origins',
          });
          expect(reportOf('/loop')).toMatchObject({ outcome: 'failed' });
          expect(reportOf('/loop').detail).toMatch(/ERR_TOO_MANY_REDIRECTS/);
          expect(reportOf('/file')).toMatchObject({ outcome: 'download' });
          // Only pages that loaded are the site's pages; the others are not visited again.
          expect(out.pages).toEqual([home, `${site.origin}/about`, `${site.origin}/video`]);
          // Nothing of the page it was sent to is the site's.
          expect(out.requests.map((r: Json) => r.url)).not.toContain(
            'http://www.google-analytics.com/away',
          );
          const health = await fetch(`${server.baseUrl}/api/health`);
          expect(health.status).toBe(200);
        } finally {
          site.misbehave(false);
        }
        const history = expectJsonObject(
          await cli(['cookie', 'scans', '--tenant', p.alias, '--system', scope]),
        );
        const scans = history.scans as Json[];
        expect(scans).toHaveLength(3);
        expect(scans.map((s) => s.status)).toEqual(['done', 'done', 'done']);
        expect(scans.map((s) => s.violations_count > 0)).toEqual([false, false, true]);
        expect(scans[2]).toMatchObject({ trigger: 'command-line', pages_limit: 3, urls: [home] });
      });

      it('a scan stops at its time limit and says which pages it did not reach', async () => {
        site.misbehave(true);
        try {
          const result = await cli(
            ['cookie', 'scan', '--tenant', p.alias, '--system', scope, '--json'],
            { COOKIE_SCAN_TIME_LIMIT_MS: '5000', COOKIE_SCAN_PAGE_TIMEOUT_MS: '120000' },
          );
          expect(result.code, showResult(result)).toBe(0);
          const out = parsed(result);
          expect(out.truncated).toBe(true);
          expect(out.page_reports).toContainEqual(
            expect.objectContaining({
              outcome: 'not-reached',
              detail: 'the scan reached its time limit',
            }),
          );
        } finally {
          site.misbehave(false);
        }
      });

      it('one scan of a system at a time (409 1005 for a second); its browser sees none of the service’s settings', async () => {
        // A scan of a page held until the test lets it go: it runs until then, whatever the
        // machine's speed.
        const first = cli(
          [
            'cookie',
            'scan',
            '--tenant',
            p.alias,
            '--system',
            scope,
            '--url',
            `${site.origin}/hang`,
          ],
          { COOKIE_SCAN_PAGE_TIMEOUT_MS: '120000' },
        );
        try {
          // Read from the store (a read takes no lock); the second scan is a process of its own,
          // as a second command would be.
          const running = await pollUntil(
            () =>
              withStore(store, async (db) => {
                const row = await db
                  .selectFrom('cookie_scans')
                  .select('status')
                  .where('status', '=', 'running')
                  .executeTakeFirst();
                return row ? true : undefined;
              }),
            { timeoutMs: budget(30_000), intervalMs: 100 },
          );
          expect(running).toBe(true);
          const second = await runCliProcess(
            ['cookie', 'scan', '--tenant', p.alias, '--system', scope, '--json'],
            scanEnv(),
            { cwd: store.dir, timeoutMs: budget(60_000) },
          );
          expect(second.code, showResult(second)).toBe(1);
          expect(second.stderr).toContain(
            'A scan of this system is running: wait for it to finish.',
          );
          // The scan's Chromium processes: their environment holds none of the service's settings.
          const environments = await pollUntil(
            async () => {
              const found = chromiumEnvironments();
              return found.length > 0 ? found : undefined;
            },
            { timeoutMs: budget(30_000), intervalMs: 100 },
          );
          expect(environments?.length).toBeGreaterThan(0);
          for (const env of environments ?? []) {
            expect(
              env
                .split('\n')
                .filter(Boolean)
                .map((line) => line.split('=')[0]),
            ).toEqual(['HOME', 'TMPDIR', 'LANG']);
          }
        } finally {
          site.release();
          const done = await first;
          expect(done.code, showResult(done)).toBe(0);
          expect(parsed(done).pages).toEqual([`${site.origin}/hang`]);
        }
        const scans = expectJsonObject(
          await cli(['cookie', 'scans', '--tenant', p.alias, '--system', scope]),
        ).scans as Json[];
        expect(scans.filter((s) => s.status === 'running')).toEqual([]);
      });

      it('`cookie database refresh` takes a copy of the Open Cookie Database from a file for every later scan; a file of another form changes nothing', async () => {
        const show = async () => expectJsonObject(await cli(['cookie', 'database', 'show']));
        expect(await show()).toMatchObject({
          copy: 'pinned',
          entries: 2264,
          sha256: '0a8d78901ae55d859e34f7cc760262819af4c764b4f9bc3bbdeea2296e31f156',
        });
        const bad = join(store.dir, 'not-the-database.csv');
        writeFileSync(bad, 'name,category\n_ga,Analytics\n');
        const refused = await cli(['cookie', 'database', 'refresh', '--file', bad]);
        expect(refused.code, showResult(refused)).toBe(1);
        expect(refused.stderr).toContain('The file is not a copy of the Open Cookie Database');
        expect(await show()).toMatchObject({ copy: 'pinned' });

        const newer = join(store.dir, 'open-cookie-database.csv');
        const header =
          'ID,Platform,Category,Cookie / Data Key name,Domain,Description,Retention period,Data Controller,User Privacy & GDPR Rights Portals,Wildcard match';
        writeFileSync(
          newer,
          `${header}\n1,Fixture Analytics,Marketing,_ga,,Says _ga is marketing,1 day,Fixture Corp,https://example.com/privacy,0\n`,
        );
        const taken = await cli(['cookie', 'database', 'refresh', '--file', newer]);
        expect(taken.code, showResult(taken)).toBe(0);
        expect(await show()).toMatchObject({
          copy: 'refreshed',
          entries: 1,
          source: 'open-cookie-database.csv',
          sha256: createHash('sha256').update(readFileSync(newer)).digest('hex'),
        });
        site.leak(['gtag']);
        try {
          const out = parsed(await scan('--pages', '1', '--json'));
          expect(out.database).toMatchObject({ copy: 'refreshed', entries: 1 });
          expect(out.cookies.find((c: Json) => c.name === '_ga')).toMatchObject({
            category: 'marketing',
            provider: 'Fixture Corp',
          });
        } finally {
          site.leak([]);
        }
      });

      it('the tenant’s overrides win over every other source in later scans: a cookie by name or prefix, a host with its subdomains; bad input is named', async () => {
        const override = (...args: string[]) =>
          cli(['cookie', 'override', ...args, '--tenant', p.alias]);
        const set = await override(
          'set',
          '--cookie',
          '_ga*',
          '--category',
          'functional',
          '--provider',
          'Our own analytics',
        );
        expect(set.code, showResult(set)).toBe(0);
        expect(JSON.parse(set.stdout)).toMatchObject({
          kind: 'cookie',
          pattern: '_ga*',
          category: 'functional',
          provider: 'Our own analytics',
        });
        expect(
          (await override('set', '--host', '.Google-Analytics.com', '--category', 'necessary'))
            .code,
        ).toBe(0);
        const both = await override(
          'set',
          '--cookie',
          '_x',
          '--host',
          'x.example',
          '--category',
          'analytics',
        );
        expect(both.code).toBe(1);
        expect(both.stderr).toContain('name a cookie or a host: one of the two');
        const badCategory = await override('set', '--cookie', '_x', '--category', 'Ads!');
        expect(badCategory.code).toBe(1);
        expect(badCategory.stderr).toContain('category');
        expect(
          JSON.parse((await override('list')).stdout).overrides.map((o: Json) => [
            o.kind,
            o.pattern,
            o.category,
          ]),
        ).toEqual([
          ['cookie', '_ga*', 'functional'],
          ['host', 'google-analytics.com', 'necessary'],
        ]);

        site.leak(['gtag']);
        try {
          const out = parsed(await scan('--pages', '1', '--json'));
          expect(out.cookies.find((c: Json) => c.name === '_ga')).toMatchObject({
            category: 'functional',
            provider: 'Our own analytics',
            classified_by: 'override',
          });
          expect(
            out.requests.find((r: Json) => r.host === 'www.google-analytics.com'),
          ).toMatchObject({
            category: 'necessary',
            classified_by: 'override',
          });
          expect(out.violations.map((v: Json) => v.name ?? v.host)).not.toContain(
            'www.google-analytics.com',
          );
        } finally {
          site.leak([]);
        }
        const removed = await override('remove', '--host', 'google-analytics.com');
        expect(JSON.parse(removed.stdout)).toEqual({
          removed: { kind: 'host', pattern: 'google-analytics.com' },
        });
        expect((await override('remove', '--host', 'google-analytics.com')).code).toBe(1);
        const audited = await withStore(store, (db) =>
          db
            .selectFrom('audit_log')
            .select(['action', 'target'])
            .where('action', 'like', 'cookie_override.%')
            .orderBy('created_at')
            .orderBy('id')
            .execute(),
        );
        expect(audited).toEqual([
          { action: 'cookie_override.set', target: 'cookie:_ga*' },
          { action: 'cookie_override.set', target: 'host:google-analytics.com' },
          { action: 'cookie_override.removed', target: 'host:google-analytics.com' },
        ]);
      });
    });
  },
);
