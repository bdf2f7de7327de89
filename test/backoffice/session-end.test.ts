import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTemplate } from '../../src/templates/service.js';
import type { TestApp } from '../helpers/app.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { storeAgnostic } from '../helpers/stores.js';
import {
  formToken,
  type PageClient,
  signedIn,
  startBackofficeApp,
  tenantPassword,
  textOf,
} from './support.js';

const unescapeHtml = (value: string) =>
  value
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

/** The hidden fields of a page's forms, values unescaped (the sign-in form carries a draft). */
function hiddenFields(page: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [, name, value] of page.matchAll(
    /<input type="hidden" name="([^"]+)" value="([^"]*)">/g,
  )) {
    fields[name ?? ''] = unescapeHtml(value ?? '');
  }
  return fields;
}

/** What the page's content field holds. */
const contentIn = (page: string) =>
  unescapeHtml(
    /<textarea[^>]* name="content_html"[^>]*>([\s\S]*?)<\/textarea>/.exec(page)?.[1] ?? '',
  );

const text = '<h1>Terms</h1>\n<p>Written while the session "ran out" & more.</p>';

describe.each(storeAgnostic)('a session that ends while a draft is written on $name', (store) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startBackofficeApp(store);
  });
  afterAll(async () => {
    await t.close();
  });

  async function writer(): Promise<{ a: SeededTenant; page: PageClient; code: string }> {
    const a = await seedTenant(t.db);
    const page = await signedIn(t.app, a.tenant.email);
    const code = await seedTemplate(t.db, a.tenant.id);
    await publish(t.db, a.tenant.id, code, { tag: '1.0', content_html: '<p>Old text</p>' });
    return { a, page, code };
  }

  /** Ends the tenant's sessions as the idle time does: no page seen for two hours. */
  async function idle(tenantId: string) {
    await t.db
      .updateTable('backoffice_sessions')
      .set({ last_seen_at: new Date(Date.now() - 2 * 3_600_000).toISOString() })
      .where('tenant_id', '=', tenantId)
      .execute();
  }

  const versionsOf = async (code: string) =>
    t.db
      .selectFrom('template_versions as v')
      .innerJoin('templates as t', 't.id', 'v.template_id')
      .select(['v.tag', 'v.content_html', 'v.status'])
      .where('t.code', '=', code)
      .execute();

  it('the live preview (htmx) answers 401 with a short message that the session ended, not the sign-in page', async () => {
    const { a, page, code } = await writer();
    await page.get(`/backoffice/templates/${code}/versions/new`);
    const token = formToken(page.lastPage) ?? '';
    await idle(a.tenant.id);
    const preview = await page.post(
      `/backoffice/templates/${code}/preview`,
      { _csrf: token, content_html: text },
      { 'hx-request': 'true' },
    );
    expect(preview.statusCode).toBe(401);
    expect(preview.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(textOf(preview.body)).toContain('Your session has ended.');
    expect(textOf(preview.body)).toContain('your text stays here');
    expect(preview.body).not.toContain('<html');
    expect(preview.body).not.toContain('name="password"');
  });

  it('saving a new draft after the session ended asks to sign in, keeps the text, and after signing in brings the form back filled from a page that exists for GET', async () => {
    const { a, page, code } = await writer();
    await page.get(`/backoffice/templates/${code}/versions/new`);
    const oldToken = formToken(page.lastPage) ?? '';
    await idle(a.tenant.id);

    const save = await page.post(`/backoffice/templates/${code}/versions`, {
      tag: '1.1',
      content_html: text,
      allow_reconsent: 'true',
      version_id: '',
    });
    expect(save.statusCode).toBe(401);
    expect(textOf(save.body)).toContain('Your session ended before this was saved');
    expect(save.body).toContain('name="password"');
    expect(hiddenFields(save.body).next).toBe(`/backoffice/templates/${code}/versions/new`);
    expect(await versionsOf(code)).toHaveLength(1);

    const signIn = await page.post('/backoffice/sign-in', {
      ...hiddenFields(save.body),
      email: a.tenant.email,
      password: tenantPassword,
    });
    expect(signIn.statusCode).toBe(303);
    expect(signIn.headers.location).toBe(`/backoffice/templates/${code}/versions/new`);

    const back = await page.get(String(signIn.headers.location));
    expect(back.statusCode).toBe(200);
    expect(textOf(back.body)).toContain('Your text is back: it is not saved yet.');
    expect(back.body).toMatch(/id="tag"[^>]*value="1\.1"/);
    expect(contentIn(back.body)).toBe(text);
    const newToken = formToken(back.body) ?? '';
    expect(newToken).not.toBe('');
    expect(newToken).not.toBe(oldToken);

    const saved = await page.post(`/backoffice/templates/${code}/versions`, {
      tag: '1.1',
      content_html: text,
      allow_reconsent: 'true',
    });
    expect(saved.statusCode).toBe(303);
    expect(await versionsOf(code)).toEqual(
      expect.arrayContaining([
        {
          tag: '1.1',
          content_html: '<h1>Terms</h1>\n<p>Written while the session "ran out" &amp; more.</p>',
          status: 'draft',
        },
      ]),
    );

    // Kept once: the form page afterwards starts from the latest published text again.
    const again = await page.get(`/backoffice/templates/${code}/versions/new`);
    expect(textOf(again.body)).not.toContain('Your text is back');
    expect(contentIn(again.body)).toBe('<p>Old text</p>');
  });

  it("editing a draft after the session ended brings the edit back on the draft's own page after signing in", async () => {
    const { a, page, code } = await writer();
    const made = await page.submit(
      `/backoffice/templates/${code}/versions/new`,
      `/backoffice/templates/${code}/versions`,
      { tag: '2.0', content_html: '<p>First words</p>', allow_reconsent: 'true' },
    );
    const draftPath = String(made.headers.location).replace(/\?.*$/, '');
    await page.get(draftPath);
    await idle(a.tenant.id);
    const save = await page.post(draftPath, { tag: '2.0', content_html: text });
    expect(save.statusCode).toBe(401);
    expect(hiddenFields(save.body).next).toBe(draftPath);
    const signIn = await page.post('/backoffice/sign-in', {
      ...hiddenFields(save.body),
      email: a.tenant.email,
      password: tenantPassword,
    });
    expect(signIn.headers.location).toBe(draftPath);
    const back = await page.get(draftPath);
    expect(textOf(back.body)).toContain('Your text is back: it is not saved yet.');
    expect(contentIn(back.body)).toBe(text);
    expect((await versionsOf(code)).find((v) => v.tag === '2.0')?.content_html).toBe(
      '<p>First words</p>',
    );
  });

  it('after a wrong password on that sign-in page, the right one still brings the text back', async () => {
    const { a, page, code } = await writer();
    await page.get(`/backoffice/templates/${code}/versions/new`);
    await idle(a.tenant.id);
    const save = await page.post(`/backoffice/templates/${code}/versions`, {
      tag: '1.1',
      content_html: text,
    });
    const wrong = await page.post('/backoffice/sign-in', {
      ...hiddenFields(save.body),
      email: a.tenant.email,
      password: 'not the password',
    });
    expect(wrong.statusCode).toBe(401);
    const right = await page.post('/backoffice/sign-in', {
      ...hiddenFields(wrong.body),
      email: a.tenant.email,
      password: tenantPassword,
    });
    expect(right.headers.location).toBe(`/backoffice/templates/${code}/versions/new`);
    expect(contentIn((await page.get(String(right.headers.location))).body)).toBe(text);
  });

  it('another account signing in on that browser does not get the text', async () => {
    const { a, page, code } = await writer();
    const other = await seedTenant(t.db);
    await t.db
      .transaction()
      .execute((trx) =>
        createTemplate(trx, other.tenant.id, { code, name: 'Same code, other tenant' }),
      );
    await page.get(`/backoffice/templates/${code}/versions/new`);
    await idle(a.tenant.id);
    const save = await page.post(`/backoffice/templates/${code}/versions`, {
      tag: '1.1',
      content_html: text,
    });
    const signIn = await page.post('/backoffice/sign-in', {
      ...hiddenFields(save.body),
      email: other.tenant.email,
      password: tenantPassword,
    });
    expect(signIn.statusCode).toBe(303);
    // The other tenant has a template of the same code: its form is not filled with the text.
    const shown = await page.get(String(signIn.headers.location));
    expect(shown.statusCode).toBe(200);
    expect(shown.body).not.toContain('ran out');
    expect(textOf(shown.body)).not.toContain('Your text is back');
  });

  it('a draft form sent after the session ended without its form token is refused (403) and its text is not echoed', async () => {
    const { a, page, code } = await writer();
    await page.get(`/backoffice/templates/${code}/versions/new`);
    await idle(a.tenant.id);
    const forged = await page.post(`/backoffice/templates/${code}/versions`, {
      _csrf: '',
      tag: '1.1',
      content_html: '<p>Planted</p>',
    });
    expect(forged.statusCode).toBe(403);
    expect(forged.body).not.toContain('Planted');
  });

  it('another form sent after the session ended sends to sign in saying why, and back to a page that exists for GET', async () => {
    const { a, page } = await writer();
    await page.get('/backoffice/api-keys');
    await idle(a.tenant.id);
    const sent = await page.post('/backoffice/api-keys', { name: 'late' });
    expect(sent.statusCode).toBe(303);
    expect(sent.headers.location).toBe(
      '/backoffice/sign-in?next=%2Fbackoffice%2Fapi-keys&notice=expired',
    );
    const signInPage = await page.get(String(sent.headers.location));
    expect(textOf(signInPage.body)).toContain('Your session has ended.');
    const signIn = await page.post('/backoffice/sign-in', {
      ...hiddenFields(signInPage.body),
      email: a.tenant.email,
      password: tenantPassword,
    });
    expect(signIn.headers.location).toBe('/backoffice/api-keys');
    expect((await page.get('/backoffice/api-keys')).statusCode).toBe(200);
  });
});
