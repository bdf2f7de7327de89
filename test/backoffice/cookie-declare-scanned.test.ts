/**
 * From a scan to the declaration (docs/cookie-scans.md): the editor's "Add the last scan's
 * cookies" writes each cookie the system's newest finished scan found under one of the draft's
 * categories into its list, with who sets it, for how long and what for; what the draft lists
 * already (by name or prefix), unclassified cookies and categories the draft has not are left
 * out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConfiguration, defaultContent, getConfiguration } from '../../src/cookies/index.js';
import { newId } from '../../src/platform/ids.js';
import type { TestApp } from '../helpers/app.js';
import { cliEditor, seedPublishedSystem } from '../helpers/cookies.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { storeAgnostic } from '../helpers/stores.js';
import { type PageClient, signedIn, startBackofficeApp, textOf } from './support.js';

const found = (
  name: string,
  category: string,
  domain: string,
  more: { provider?: string; retention?: string; purpose?: string } = {},
) => ({
  name,
  domain,
  path: '/',
  expires: null,
  category,
  provider: more.provider ?? null,
  phase: 'accept-all',
  page: 'https://www.bank.example/',
  platform: null,
  purpose: more.purpose ?? null,
  retention: more.retention ?? null,
  classified_by: 'open-cookie-database',
  http_only: false,
  secure: true,
  same_site: 'Lax',
  cause: null,
});

describe.each(storeAgnostic)('the last scan’s cookies into a draft on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let admin: PageClient;

  beforeAll(async () => {
    t = await startBackofficeApp(store);
    a = await seedTenant(t.db);
    admin = await signedIn(t.app, a.tenant.email);
  });
  afterAll(() => t?.close());

  async function draftOn(scope: string) {
    const content = defaultContent(['analytics', 'marketing']);
    const analytics = content.categories.find((c) => c.key === 'analytics');
    if (analytics) analytics.cookies = [{ name: '_ga_*' }];
    return t.db
      .transaction()
      .execute((trx) =>
        createConfiguration(
          trx,
          a.tenant.id,
          { system: scope, name: 'Declared', content },
          cliEditor(a.tenant.id),
        ),
      );
  }

  it('adds what the scan found under the draft’s categories, with provider, retention and purpose; again, nothing more', async () => {
    const site = await seedPublishedSystem(t.db, a.tenant.id, { categories: ['analytics'] });
    const systemId = (
      await t.db
        .selectFrom('cookie_systems')
        .select('id')
        .where('scope', '=', site.scope)
        .executeTakeFirstOrThrow()
    ).id;
    const result = {
      pages: ['https://www.bank.example/'],
      page_reports: [],
      cookies: [
        found('_ga', 'analytics', '.bank.example', {
          provider: 'Google',
          retention: '2 years',
          purpose: 'Tells visitors apart',
        }),
        found('_ga_ABC123', 'analytics', '.bank.example'),
        found('_fbp', 'marketing', '.bank.example', { provider: 'Meta' }),
        found('sid', 'necessary', 'www.bank.example'),
        found('mystery', 'unclassified', 'www.bank.example'),
        found('pref', 'functional', 'www.bank.example'),
        found('_ga', 'analytics', '.bank.example'),
      ],
      requests: [],
      storage: [],
      violations: [],
      choices: { accept_all: true, reject_all: true },
      truncated: false,
    };
    await t.db
      .insertInto('cookie_scans')
      .values({
        tenant_id: a.tenant.id,
        id: newId(),
        system_id: systemId,
        status: 'done',
        trigger: 'command-line',
        actor: 'command line',
        urls: JSON.stringify(['https://www.bank.example/']),
        pages_limit: 1,
        started_at: '2026-11-30T00:00:00.000Z',
        finished_at: '2026-11-30T00:01:00.000Z',
        violations: 0,
        changes: 0,
        result: JSON.stringify(result),
        error: null,
      })
      .execute();
    const draft = await draftOn(site.scope);
    const editor = `/backoffice/cookies/configurations/${draft.id}/edit`;
    expect((await admin.get(editor)).body).toContain('Add the last scan’s cookies');
    const added = await admin.post(
      `/backoffice/cookies/configurations/${draft.id}/declare-scanned`,
      {},
    );
    expect(added.statusCode).toBe(303);
    expect(added.headers.location).toBe(`${editor}?notice=scanned_added`);
    const { content } = await getConfiguration(t.db, a.tenant.id, draft.id);
    const cookiesOf = (key: string) => content.categories.find((c) => c.key === key)?.cookies;
    expect(cookiesOf('analytics')).toEqual([
      { name: '_ga_*' },
      {
        name: '_ga',
        domain: '.bank.example',
        provider: 'Google',
        retention: '2 years',
        purpose: { en: 'Tells visitors apart' },
      },
    ]);
    expect(cookiesOf('marketing')).toEqual([
      { name: '_fbp', domain: '.bank.example', provider: 'Meta' },
    ]);
    expect(cookiesOf('necessary')).toEqual([{ name: 'sid' }]);
    // The editor shows them in the category's list.
    expect(textOf((await admin.get(`${editor}?notice=scanned_added`)).body)).toContain(
      'The last scan’s cookies are in the lists below',
    );

    await admin.get(editor);
    const again = await admin.post(
      `/backoffice/cookies/configurations/${draft.id}/declare-scanned`,
      {},
    );
    expect(again.headers.location).toBe(`${editor}?notice=scanned_none`);
  });

  it('says so when the system has no finished scan, and changes nothing', async () => {
    const site = await seedPublishedSystem(t.db, a.tenant.id, { categories: ['analytics'] });
    const draft = await draftOn(site.scope);
    const before = (await getConfiguration(t.db, a.tenant.id, draft.id)).content_sha256;
    await admin.get(`/backoffice/cookies/configurations/${draft.id}/edit`);
    const none = await admin.post(
      `/backoffice/cookies/configurations/${draft.id}/declare-scanned`,
      {},
    );
    expect(none.headers.location).toBe(
      `/backoffice/cookies/configurations/${draft.id}/edit?notice=no_scan`,
    );
    expect((await getConfiguration(t.db, a.tenant.id, draft.id)).content_sha256).toBe(before);
  });
});
