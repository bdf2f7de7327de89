import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRole } from '../../src/accounts/roles.js';
import { addUser } from '../../src/accounts/users.js';
import { hashPassword } from '../../src/tenants/passwords.js';
import { apiOf } from '../helpers/api.js';
import { json, type TestApp } from '../helpers/app.js';
import { publish, type SeededTenant, seedTemplate, seedTenant, unique } from '../helpers/seed.js';
import { storeAgnostic } from '../helpers/stores.js';
import { testPasswordHashCost } from '../helpers/time.js';
import {
  fourEyesOff,
  type PageClient,
  publishThroughReview,
  signedIn,
  startBackofficeApp,
  tenantPassword,
  textOf,
} from './support.js';

describe.each(storeAgnostic)('templates and versions in the back-office on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let page: PageClient;

  beforeAll(async () => {
    t = await startBackofficeApp(store);
    a = await seedTenant(t.db);
    // One admin publishes alone here; review with several people is review.test.ts's.
    await fourEyesOff(t.db, a.tenant.id);
    page = await signedIn(t.app, a.tenant.email);
  });
  afterAll(async () => {
    await t.close();
  });

  const draftIdIn = (location: string) => /\/versions\/([0-9a-f-]{36})/.exec(location)?.[1] ?? '';

  async function createTemplate(code: string, name = `Template ${code}`) {
    return page.submit('/backoffice/templates/new', '/backoffice/templates', {
      code,
      name,
      description: 'Made in a test.',
    });
  }

  async function createDraft(code: string, fields: Record<string, string>) {
    const response = await page.submit(
      `/backoffice/templates/${code}/versions/new`,
      `/backoffice/templates/${code}/versions`,
      { allow_reconsent: 'true', ...fields },
    );
    expect(response.statusCode, response.body).toBe(303);
    return draftIdIn(String(response.headers.location));
  }

  it('a template made with the form is listed, and its page says nothing is published yet', async () => {
    const code = unique('form');
    const created = await createTemplate(code, 'Marketing <terms>');
    expect(created.statusCode).toBe(303);
    expect(created.headers.location).toBe(`/backoffice/templates/${code}?notice=created`);
    const shown = await page.get(String(created.headers.location));
    expect(textOf(shown.body)).toContain('Template created.');
    expect(textOf(shown.body)).toContain('none published yet');
    expect(shown.body).toContain('Marketing &lt;terms&gt;');
    const list = await page.get('/backoffice/templates');
    expect(textOf(list.body)).toContain(code);
  });

  it('a template code in use, or malformed, answers 400 with the form and its message, keeping the values', async () => {
    const code = unique('dup');
    await createTemplate(code);
    const again = await createTemplate(code, 'Second');
    expect(again.statusCode).toBe(400);
    expect(textOf(again.body)).toContain(`A template with code "${code}" already exists.`);
    expect(again.body).toContain('value="Second"');
    const malformed = await createTemplate('-no spaces-');
    expect(malformed.statusCode).toBe(400);
    expect(malformed.body).toMatch(/id="code"[^>]*aria-invalid="true"/);
    expect(textOf(malformed.body)).toContain('starting with a letter or digit');
  });

  it('a template is made with its first version in one step: the draft is saved and its page says so; a half-written version makes nothing', async () => {
    const code = unique('withfirst');
    const made = await page.submit('/backoffice/templates/new', '/backoffice/templates', {
      code,
      name: 'With a first version',
      tag: '1.0',
      content_html: '<p>First words</p><script>x()</script>',
      allow_reconsent: 'true',
    });
    expect(made.statusCode).toBe(303);
    const id = draftIdIn(String(made.headers.location));
    expect(textOf((await page.get(String(made.headers.location))).body)).toContain('Draft saved.');
    const row = await t.db
      .selectFrom('template_versions')
      .select(['tag', 'content_html', 'status', 'allow_reconsent'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({
      tag: '1.0',
      content_html: '<p>First words</p>',
      status: 'draft',
      allow_reconsent: 1,
    });

    const half = unique('half');
    const refused = await page.submit('/backoffice/templates/new', '/backoffice/templates', {
      code: half,
      name: 'Half',
      tag: '1.0',
      content_html: '',
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toMatch(/id="content_html"[^>]*aria-invalid="true"/);
    const stored = await t.db
      .selectFrom('templates')
      .select('id')
      .where('code', '=', half)
      .execute();
    expect(stored).toEqual([]);
  });

  it('a role that makes templates but not versions cannot write a first version with it (403), and is not offered one', async () => {
    const role = await createRole(t.db, a.tenant.id, {
      name: 'Template maker',
      description: 'Templates only',
      permissions: ['templates:view', 'templates:create'],
    });
    const email = `maker-${a.tenant.alias}@example.test`;
    const hash = await hashPassword(tenantPassword, testPasswordHashCost);
    await t.db
      .transaction()
      .execute((trx) =>
        addUser(trx, a.tenant.id, { email, name: 'Maker', roles: [role.id], passwordHash: hash }),
      );
    const maker = await signedIn(t.app, email);
    const form = await maker.get('/backoffice/templates/new');
    expect(form.body).not.toContain('First version');
    const code = unique('maker');
    const refused = await maker.post('/backoffice/templates', {
      code,
      name: 'Maker',
      tag: '1.0',
      content_html: '<p>Sneaked in</p>',
    });
    expect(refused.statusCode).toBe(403);
    expect(
      await t.db.selectFrom('templates').select('id').where('code', '=', code).execute(),
    ).toEqual([]);
    expect((await maker.post('/backoffice/templates', { code, name: 'Maker' })).statusCode).toBe(
      303,
    );
  });

  it('a draft is saved sanitized and is not answered by the API until published', async () => {
    const code = unique('draft');
    await createTemplate(code);
    const id = await createDraft(code, {
      tag: '1.0',
      content_html: '<h1>Terms</h1><p onclick="x()">Text</p><script>alert(1)</script>',
    });
    const shown = await page.get(`/backoffice/templates/${code}/versions/${id}`);
    expect(shown.statusCode).toBe(200);
    expect(shown.body).toContain('<h1>Terms</h1><p>Text</p>');
    expect(shown.body).not.toContain('alert(1)');
    expect(shown.body).not.toContain('onclick');
    const latest = await apiOf(t.app, a.headers).latest(code);
    expect(latest.statusCode).toBe(404);
  });

  it('the preview answers what the sanitizer keeps: a fragment for htmx, the whole form without scripts; nothing is stored', async () => {
    const code = unique('preview');
    await createTemplate(code);
    const content =
      '<h2>Terms</h2><p onclick="x()">Kept <b>bold</b></p><script>alert(1)</script><img src="javascript:alert(2)">';
    const form = await page.get(`/backoffice/templates/${code}/versions/new`);
    expect(form.body).toContain(`hx-post="/backoffice/templates/${code}/preview"`);
    const fragment = await page.post(
      `/backoffice/templates/${code}/preview`,
      { version_id: '', tag: '', content_html: content },
      { 'hx-request': 'true' },
    );
    expect(fragment.statusCode).toBe(200);
    expect(fragment.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(fragment.body).toBe('<h2>Terms</h2><p>Kept <b>bold</b></p><img />');
    // Every post carries the form token of the page read before it.
    const whole = await page.submit(
      `/backoffice/templates/${code}/versions/new`,
      `/backoffice/templates/${code}/preview`,
      {
        version_id: '',
        tag: '3.1',
        content_html: content,
      },
    );
    expect(whole.statusCode).toBe(200);
    expect(whole.body).toContain('<h1>New draft version</h1>');
    expect(whole.body).toContain('value="3.1"');
    expect(whole.body).toMatch(/id="preview"[^>]*>\s*<h2>Terms<\/h2><p>Kept <b>bold<\/b><\/p>/);
    expect(whole.body).not.toContain('alert(1)</script>');
    const id = await createDraft(code, { tag: '1.0', content_html: '<p>Stored</p>' });
    const draft = await page.submit(
      `/backoffice/templates/${code}/versions/${id}`,
      `/backoffice/templates/${code}/preview`,
      {
        version_id: id,
        tag: '1.0',
        content_html: '<p>Changed</p>',
      },
    );
    expect(draft.statusCode).toBe(200);
    expect(draft.body).toContain('<h2>Edit the draft</h2>');
    expect(draft.body).toMatch(/id="preview"[^>]*>\s*<p>Changed<\/p>/);
    const stored = await t.db
      .selectFrom('template_versions')
      .select('content_html')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(stored.content_html).toBe('<p>Stored</p>');
  });

  it('a draft can be edited; a tag used in the template is refused; an empty content is refused', async () => {
    const code = unique('edit');
    await createTemplate(code);
    await createDraft(code, { tag: '1.0', content_html: '<p>One</p>' });
    const id = await createDraft(code, { tag: '2.0', content_html: '<p>Two</p>' });
    await page.get(`/backoffice/templates/${code}/versions/${id}`);
    const clash = await page.post(`/backoffice/templates/${code}/versions/${id}`, {
      tag: '1.0',
      content_html: '<p>Two</p>',
    });
    expect(clash.statusCode).toBe(400);
    expect(textOf(clash.body)).toContain('Tag "1.0" is already used in this template.');
    const empty = await page.post(`/backoffice/templates/${code}/versions/${id}`, {
      tag: '2.0',
      content_html: '',
    });
    expect(empty.statusCode).toBe(400);
    expect(empty.body).toMatch(/id="content_html"[^>]*aria-invalid="true"/);
    const saved = await page.post(`/backoffice/templates/${code}/versions/${id}`, {
      tag: '2.1',
      content_html: '<p>Two, edited</p>',
      file_url: 'https://example.com/terms.html',
    });
    expect(saved.statusCode).toBe(303);
    const row = await t.db
      .selectFrom('template_versions')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      tag: '2.1',
      content_html: '<p>Two, edited</p>',
      file_url: 'https://example.com/terms.html',
      allow_reconsent: 0,
      status: 'draft',
    });
  });

  it('the review page shows, word by word, what the draft changes against the latest version', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    await publish(t.db, a.tenant.id, code, {
      tag: '1.0',
      content_html: '<p>We keep your e-mail address.</p>',
    });
    const id = await createDraft(code, {
      tag: '1.1',
      content_html: '<p>We keep your e-mail address and phone number.</p>',
    });
    const confirm = await page.get(`/backoffice/templates/${code}/versions/${id}/review`);
    expect(textOf(confirm.body)).toContain(
      'Against version 1 (tag 1.0): 3 words added, 0 words removed.',
    );
    expect(confirm.body).toContain(
      '<ins><span class="visually-hidden">[added: </span> and phone number<span class="visually-hidden">]</span></ins>',
    );
  });

  it('the review page says how many customers become pending; approving publishes it and the API answers it', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const v1 = await publish(t.db, a.tenant.id, code, { tag: '1.0' });
    const api = apiOf(t.app, a.headers);
    for (const customer of ['c1', 'c2', 'c3']) {
      expect((await api.decide(customer, v1.consent_version_id, 'given')).statusCode).toBe(201);
    }
    expect((await api.decide('c1', v1.consent_version_id, 'withdraw')).statusCode).toBe(201);
    const id = await createDraft(code, { tag: '2.0', content_html: '<p>Second text</p>' });

    const confirm = await page.get(`/backoffice/templates/${code}/versions/${id}/review`);
    expect(confirm.statusCode).toBe(200);
    const text = textOf(confirm.body);
    expect(text).toContain(
      'Once approved it is published as version 2, at once or at the time you give.',
    );
    expect(text).toContain(
      '3 customers decided on the current latest version (1, tag 1.0) and will become pending',
    );

    const published = await publishThroughReview(page, code, id);
    expect(published.statusCode).toBe(303);
    expect(published.headers.location).toBe(`/backoffice/templates/${code}?notice=published`);
    const latest = json(await api.latest(code));
    expect(latest.data).toMatchObject({ consent_version_id: id, version: 2, tag: '2.0' });
    expect(json(await api.pending('c2', code)).data.accepted).toBe(false);
    const audit = await t.db
      .selectFrom('audit_log')
      .selectAll()
      .where('tenant_id', '=', a.tenant.id)
      .where('action', '=', 'version.published')
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow();
    expect(audit.actor).toBe(a.tenant.email);
    expect(JSON.parse(audit.details ?? '{}')).toMatchObject({
      version: 2,
      customers_made_pending: 3,
    });
    const row = await t.db
      .selectFrom('template_versions')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.published_by).toBe(a.tenant.email);
  });

  it('the review of the first version of a template says nobody becomes pending', async () => {
    const code = unique('first');
    await createTemplate(code);
    const id = await createDraft(code, { tag: '1.0', content_html: '<p>First</p>' });
    const confirm = await page.get(`/backoffice/templates/${code}/versions/${id}/review`);
    expect(textOf(confirm.body)).toContain(
      'It will be the first published version of this template: no customer becomes pending.',
    );
  });

  it('a published version cannot be edited, submitted or approved again (409 page)', async () => {
    const code = unique('immutable');
    await createTemplate(code);
    const id = await createDraft(code, { tag: '1.0', content_html: '<p>Once</p>' });
    expect((await publishThroughReview(page, code, id)).statusCode).toBe(303);
    const shown = await page.get(`/backoffice/templates/${code}/versions/${id}`);
    expect(shown.body).not.toContain('name="content_html"');
    const edit = await page.post(`/backoffice/templates/${code}/versions/${id}`, {
      tag: '1.0',
      content_html: '<p>Changed</p>',
    });
    expect(edit.statusCode).toBe(409);
    expect(textOf(edit.body)).toContain('A published version cannot be changed.');
    for (const step of ['submit', 'approve']) {
      const again = await page.post(`/backoffice/templates/${code}/versions/${id}/${step}`, {});
      expect(again.statusCode).toBe(409);
      expect(again.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(textOf(again.body)).toContain('This version is already published.');
    }
  });

  /** The content field's value as the page shows it (escape-html's five entities undone). */
  const contentFieldOf = (body: string) =>
    (/<textarea[^>]*id="content_html"[^>]*>([\s\S]*?)<\/textarea>/.exec(body)?.[1] ?? '')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, '&');
  const nothingVisible =
    'The content has no visible text once unsafe parts are removed (scripts, styles and forms are not kept; an image counts by its alt text).';
  const unsafeOnly =
    '<script>track()</script><style>p{color:red}</style><form><input name="q"></form>';

  it('a new draft with nothing visible once sanitized answers 400 with the form, the text kept and the reason; nothing is stored', async () => {
    const code = unique('blank');
    await createTemplate(code);
    const refused = await page.submit(
      `/backoffice/templates/${code}/versions/new`,
      `/backoffice/templates/${code}/versions`,
      { tag: '1.0', content_html: unsafeOnly, allow_reconsent: 'true' },
    );
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('<h1>New draft version</h1>');
    expect(textOf(refused.body)).toContain(nothingVisible);
    expect(contentFieldOf(refused.body)).toBe(unsafeOnly);
    expect(refused.body).toContain('value="1.0"');
    const rows = await t.db
      .selectFrom('template_versions')
      .innerJoin('templates', 'templates.id', 'template_versions.template_id')
      .select('template_versions.id')
      .where('templates.code', '=', code)
      .execute();
    expect(rows).toEqual([]);
  });

  it('editing a draft to nothing visible answers 400 with the form, the text kept and the reason; the draft is unchanged', async () => {
    const code = unique('blank-edit');
    await createTemplate(code);
    const id = await createDraft(code, { tag: '1.0', content_html: '<p>Before</p>' });
    await page.get(`/backoffice/templates/${code}/versions/${id}`);
    const refused = await page.post(`/backoffice/templates/${code}/versions/${id}`, {
      tag: '1.0',
      content_html: unsafeOnly,
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('<h2>Edit the draft</h2>');
    expect(textOf(refused.body)).toContain(nothingVisible);
    expect(contentFieldOf(refused.body)).toBe(unsafeOnly);
    const row = await t.db
      .selectFrom('template_versions')
      .select('content_html')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.content_html).toBe('<p>Before</p>');
  });

  it('submitting a draft stored with nothing visible answers 400 with the reason; it stays a draft', async () => {
    const code = unique('blank-publish');
    await createTemplate(code);
    const id = await createDraft(code, { tag: '1.0', content_html: '<p>Soon emptied</p>' });
    // As a draft saved before empty content was refused would be.
    await t.db
      .updateTable('template_versions')
      .set({ content_html: '<p> </p>' })
      .where('id', '=', id)
      .execute();
    await page.get(`/backoffice/templates/${code}/versions/${id}/review`);
    const refused = await page.post(`/backoffice/templates/${code}/versions/${id}/submit`, {
      comment: 'Please look',
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(refused.body).toContain('<h2>Submit for review</h2>');
    expect(textOf(refused.body)).toContain(nothingVisible);
    expect(refused.body).toContain('>Please look</textarea>');
    const row = await t.db
      .selectFrom('template_versions')
      .select(['status', 'version'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'draft', version: null });
    expect((await apiOf(t.app, a.headers).latest(code)).statusCode).toBe(404);
  });

  it('a text sent by the browser with CRLF line endings is stored with LF, its SHA-256 that of the LF text', async () => {
    // The LF text and its SHA-256 (hex), computed apart from the service.
    const lf = '<h1>Terms</h1>\n<p>We keep your e-mail address\nto run your account.</p>';
    const lfSha256 = 'e669acf0a78ccd70eca88201367262bc0c2e3fecaf77fd5767f2874bb265c82b';
    const code = unique('crlf');
    await createTemplate(code);
    const id = await createDraft(code, { tag: '1.0', content_html: lf.replaceAll('\n', '\r\n') });
    const row = await t.db
      .selectFrom('template_versions')
      .select(['content_html', 'content_sha256'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ content_html: lf, content_sha256: lfSha256 });
    const shown = await page.get(`/backoffice/templates/${code}/versions/${id}`);
    expect(shown.body).toContain(lfSha256);
  });

  it('a content larger than the API limit (16 KiB) is accepted by the draft form', async () => {
    const code = unique('long');
    await createTemplate(code);
    const long = `<p>${'Lorem ipsum dolor sit amet. '.repeat(4000)}</p>`;
    const id = await createDraft(code, { tag: '1.0', content_html: long });
    const row = await t.db
      .selectFrom('template_versions')
      .select('content_html')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.content_html.length).toBeGreaterThan(100_000);
  });
  it('"Draft saved." shows once, right after saving the draft: not on a reload, nor on the version once published', async () => {
    const code = unique('notice');
    await createTemplate(code);
    const made = await page.submit(
      `/backoffice/templates/${code}/versions/new`,
      `/backoffice/templates/${code}/versions`,
      { tag: '1.0', content_html: '<p>Saved</p>' },
    );
    const location = String(made.headers.location);
    const id = draftIdIn(location);
    expect(textOf((await page.get(location)).body)).toContain('Draft saved.');
    expect(textOf((await page.get(location)).body)).not.toContain('Draft saved.');

    const edited = await page.post(`/backoffice/templates/${code}/versions/${id}`, {
      tag: '1.0',
      content_html: '<p>Saved again</p>',
    });
    expect(edited.statusCode).toBe(303);
    expect(textOf((await page.get(String(edited.headers.location))).body)).toContain(
      'Draft saved.',
    );

    expect((await publishThroughReview(page, code, id)).statusCode).toBe(303);
    for (const url of [
      `/backoffice/templates/${code}/versions/${id}`,
      `/backoffice/templates/${code}/versions/${id}?notice=saved`,
    ]) {
      const shown = await page.get(url);
      expect(textOf(shown.body), url).toContain('published');
      expect(textOf(shown.body), url).not.toContain('Draft saved.');
    }
  });

  it("the new-version form suggests the tag after the latest version's (1.0 -> 1.1, 2 -> 3), skipping tags in use, 1.0 for a first version", async () => {
    const tagField = async (code: string) =>
      /<input type="text" id="tag" name="tag"[^>]* value="([^"]*)">/.exec(
        (await page.get(`/backoffice/templates/${code}/versions/new`)).body,
      )?.[1];

    const fresh = unique('tags');
    await createTemplate(fresh);
    expect(await tagField(fresh)).toBe('1.0');

    const dotted = await seedTemplate(t.db, a.tenant.id);
    await publish(t.db, a.tenant.id, dotted, { tag: '1.0' });
    expect(await tagField(dotted)).toBe('1.1');
    await createDraft(dotted, { tag: '1.1', content_html: '<p>Next</p>' });
    expect(await tagField(dotted)).toBe('1.2');

    const whole = await seedTemplate(t.db, a.tenant.id);
    await publish(t.db, a.tenant.id, whole, { tag: '2' });
    expect(await tagField(whole)).toBe('3');
  });
});
