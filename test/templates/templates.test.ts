import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/platform/hashing.js';
import {
  createDraftVersion,
  createTemplate,
  getTemplateByCode,
  publishDraft,
  updateDraftVersion,
} from '../../src/templates/service.js';
import { expectErrorShape, startTestApp, type TestApp } from '../helpers/app.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';

describe.each(stores)('templates and versions on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;

  beforeAll(async () => {
    t = await startTestApp(store);
    a = await seedTenant(t.db);
  });
  afterAll(async () => {
    await t.close();
  });

  it('a template code is unique within its tenant (409 1005)', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    await expect(
      t.db
        .transaction()
        .execute((trx) => createTemplate(trx, a.tenant.id, { code, name: 'again' })),
    ).rejects.toMatchObject({
      status: 409,
      code: '1005',
    });
  });

  it.each(['', '_leading', 'has space', 'x'.repeat(65), 'ünicode'])(
    'refuses the template code %j (400 1001)',
    async (code) => {
      await expect(
        t.db.transaction().execute((trx) => createTemplate(trx, a.tenant.id, { code, name: 'n' })),
      ).rejects.toMatchObject({
        status: 400,
        code: '1001',
      });
    },
  );

  it.each(['1', '1.0', '2.1.3', '10.20.30.40'])('accepts the tag %s', async (tag) => {
    const code = await seedTemplate(t.db, a.tenant.id);
    expect((await publish(t.db, a.tenant.id, code, { tag })).tag).toBe(tag);
  });

  it.each(['v1', '1.', '.1', '1.2.3.4.5', '1-0', ''])(
    'refuses the tag %j (400 1001)',
    async (tag) => {
      const code = await seedTemplate(t.db, a.tenant.id);
      await expect(publish(t.db, a.tenant.id, code, { tag })).rejects.toMatchObject({
        status: 400,
        code: '1001',
      });
    },
  );

  it('a tag is unique within its template, and may repeat in another template', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    await publish(t.db, a.tenant.id, code, { tag: '1.0' });
    await expect(publish(t.db, a.tenant.id, code, { tag: '1.0' })).rejects.toMatchObject({
      status: 409,
    });
    const other = await seedTemplate(t.db, a.tenant.id);
    expect((await publish(t.db, a.tenant.id, other, { tag: '1.0' })).tag).toBe('1.0');
  });

  it('allow_reconsent defaults to true', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    expect((await publish(t.db, a.tenant.id, code)).allow_reconsent).toBe(true);
  });

  it('a published version is immutable: it cannot be published again', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    await t.db.transaction().execute(async (trx) => {
      const template = await getTemplateByCode(trx, a.tenant.id, code);
      const draft = await createDraftVersion(trx, template, { tag: '1', content_html: '<p>x</p>' });
      expect(draft).toMatchObject({ status: 'draft', version: null, published_at: null });
      const published = await publishDraft(trx, draft, code, 'tester');
      expect(published).toMatchObject({ status: 'published', version: 1, published_by: 'tester' });
      await expect(publishDraft(trx, published, code, 'tester')).rejects.toMatchObject({
        status: 409,
      });
    });
  });

  it('drafts take no number: versions are numbered in order of publication', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    await t.db.transaction().execute(async (trx) => {
      const template = await getTemplateByCode(trx, a.tenant.id, code);
      const early = await createDraftVersion(trx, template, { tag: '1', content_html: '<p>1</p>' });
      const late = await createDraftVersion(trx, template, { tag: '2', content_html: '<p>2</p>' });
      expect((await publishDraft(trx, late, code, 't')).version).toBe(1);
      expect((await publishDraft(trx, early, code, 't')).version).toBe(2);
    });
  });

  it('stores the SHA-256 of the sanitized content', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const v = await publish(t.db, a.tenant.id, code, {
      content_html: '<p onclick="x()">Kept</p><script>gone()</script>',
    });
    expect(v.content_html).toBe('<p>Kept</p>');
    const row = await t.db
      .selectFrom('template_versions')
      .select('content_sha256')
      .where('id', '=', v.consent_version_id)
      .executeTakeFirstOrThrow();
    expect(row.content_sha256).toBe(sha256Hex('<p>Kept</p>'));
  });

  describe('content with nothing visible once sanitized', () => {
    const nothingVisible =
      'The content has no visible text once unsafe parts are removed (scripts, styles and forms are not kept; an image counts by its alt text).';

    const draftOf = (content_html: string) =>
      t.db.transaction().execute(async (trx) => {
        const template = await getTemplateByCode(
          trx,
          a.tenant.id,
          await seedTemplate(trx, a.tenant.id),
        );
        return createDraftVersion(trx, template, { tag: '1', content_html });
      });

    it.each([
      [
        'scripts, styles and forms only',
        '<script>track()</script><style>p{}</style><form><input name="q"></form>',
      ],
      ['empty elements and white space', '<p> </p>\n<div><span>\t</span></div><br><hr>'],
      ['non-breaking and zero-width spaces', '<p>&nbsp;&#8203;&#x200D;&#xFEFF;\u00a0</p>'],
      ['an image with no alt text', '<img src="https://example.com/terms.png">'],
      [
        'an image whose alt text is blank',
        '<p><img src="https://example.com/terms.png" alt="  "></p>',
      ],
      ['an unsafe image only', '<img src="javascript:alert(1)">'],
    ])(
      'a draft of %s is refused (400 1001) with the reason, and nothing is stored',
      async (_what, content) => {
        const before = await t.db.selectFrom('template_versions').select('id').execute();
        await expect(draftOf(content)).rejects.toMatchObject({
          status: 400,
          code: '1001',
          message: nothingVisible,
        });
        const after = await t.db.selectFrom('template_versions').select('id').execute();
        expect(after).toHaveLength(before.length);
      },
    );

    it('publishing in one step (the command line) refuses it the same way, and latest stays 404', async () => {
      const code = await seedTemplate(t.db, a.tenant.id);
      await expect(
        publish(t.db, a.tenant.id, code, { content_html: '<script>x()</script><form>f</form>' }),
      ).rejects.toMatchObject({ status: 400, code: '1001', message: nothingVisible });
      const latest = await t.app.inject({
        method: 'GET',
        url: `/api/v1/consent-templates/${code}/latest`,
        headers: a.headers,
      });
      expect(latest.statusCode).toBe(404);
    });

    it('editing a draft to nothing visible is refused and keeps the draft as it was', async () => {
      const draft = await draftOf('<p>Kept text</p>');
      const template = await t.db
        .selectFrom('templates')
        .selectAll()
        .where('id', '=', draft.template_id)
        .executeTakeFirstOrThrow();
      await expect(
        t.db.transaction().execute((trx) =>
          updateDraftVersion(trx, template, draft.id, {
            tag: '1',
            content_html: '<style>p{}</style>',
          }),
        ),
      ).rejects.toMatchObject({ status: 400, code: '1001', message: nothingVisible });
      const row = await t.db
        .selectFrom('template_versions')
        .select('content_html')
        .where('id', '=', draft.id)
        .executeTakeFirstOrThrow();
      expect(row.content_html).toBe('<p>Kept text</p>');
    });

    it('a draft stored empty (saved before the rule) cannot be published: 400 1001, it stays a draft', async () => {
      const draft = await draftOf('<p>Soon emptied</p>');
      await t.db
        .updateTable('template_versions')
        .set({
          content_html: '',
          content_sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
        })
        .where('id', '=', draft.id)
        .execute();
      await expect(
        t.db
          .transaction()
          .execute((trx) => publishDraft(trx, { ...draft, content_html: '' }, 'code', 'tester')),
      ).rejects.toMatchObject({ status: 400, code: '1001', message: nothingVisible });
      const row = await t.db
        .selectFrom('template_versions')
        .select(['status', 'version'])
        .where('id', '=', draft.id)
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ status: 'draft', version: null });
    });

    it.each([
      ['one visible character among unsafe parts', '<script>x()</script><p>.</p>', '<p>.</p>'],
      [
        'an image with alt text',
        '<img src="https://example.com/terms.png" alt="Our terms">',
        '<img src="https://example.com/terms.png" alt="Our terms" />',
      ],
      [
        'text in a table cell',
        '<table><tr><td>Yes</td></tr></table>',
        '<table><tr><td>Yes</td></tr></table>',
      ],
    ])('a draft of %s is saved', async (_what, content, kept) => {
      expect((await draftOf(content)).content_html).toBe(kept);
    });
  });

  describe('line endings', () => {
    // The same text with LF line endings, and its SHA-256 (hex), computed apart from the service.
    const lf = '<h1>Terms</h1>\n<p>We keep your e-mail address\nto run your account.</p>';
    const lfSha256 = 'e669acf0a78ccd70eca88201367262bc0c2e3fecaf77fd5767f2874bb265c82b';

    it.each([
      ['LF', lf],
      ['CRLF', lf.replaceAll('\n', '\r\n')],
      ['lone CR', lf.replaceAll('\n', '\r')],
    ])(
      'a text saved with %s line endings is stored with LF and hashed as the LF text',
      async (_what, content) => {
        const code = await seedTemplate(t.db, a.tenant.id);
        const v = await publish(t.db, a.tenant.id, code, { content_html: content });
        expect(v.content_html).toBe(lf);
        const row = await t.db
          .selectFrom('template_versions')
          .select(['content_html', 'content_sha256'])
          .where('id', '=', v.consent_version_id)
          .executeTakeFirstOrThrow();
        expect(row).toEqual({ content_html: lf, content_sha256: lfSha256 });
      },
    );
  });

  describe('content file /api/content/{id}.html', () => {
    it('serves the version as a complete HTML document, with no key, cached for ever', async () => {
      const code = await seedTemplate(t.db, a.tenant.id);
      const v = await publish(t.db, a.tenant.id, code, {
        content_html: '<h1>Terms</h1><p>Body</p>',
      });
      const path = new URL(v.file_url).pathname;
      expect(path).toBe(`/api/content/${v.consent_version_id}.html`);
      const response = await t.app.inject({ method: 'GET', url: path });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(response.body).toMatch(/^<!doctype html>\n<html>/);
      expect(response.body).toContain('<meta charset="utf-8">');
      expect(response.body).toContain('<body>\n<h1>Terms</h1><p>Body</p>\n</body>');
      expect(response.body.trimEnd().endsWith('</html>')).toBe(true);
    });

    it('when the version is unknown or a draft, answers 404 1004 in JSON', async () => {
      const unknown = await t.app.inject({
        method: 'GET',
        url: '/api/content/01900000-0000-7000-8000-000000000000.html',
      });
      expect(unknown.statusCode).toBe(404);
      expect(expectErrorShape(unknown).code).toBe('1004');
      const code = await seedTemplate(t.db, a.tenant.id);
      const draft = await t.db.transaction().execute(async (trx) =>
        createDraftVersion(trx, await getTemplateByCode(trx, a.tenant.id, code), {
          tag: '1',
          content_html: '<p>draft</p>',
        }),
      );
      const response = await t.app.inject({ method: 'GET', url: `/api/content/${draft.id}.html` });
      expect(response.statusCode).toBe(404);
    });

    it('when the file name is not {uuid}.html, answers 400 1001', async () => {
      const response = await t.app.inject({
        method: 'GET',
        url: '/api/content/not-a-version.html',
      });
      expect(response.statusCode).toBe(400);
      expect(expectErrorShape(response).code).toBe('1001');
    });
  });
});
