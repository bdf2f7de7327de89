import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../src/platform/hashing.js';
import {
  createDraftVersion,
  createTemplate,
  getTemplateByCode,
  publishDraft,
} from '../src/templates/service.js';
import { expectErrorShape, startTestApp, type TestApp } from './helpers/app.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from './helpers/seed.js';
import { stores } from './helpers/stores.js';

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
    await expect(createTemplate(t.db, a.tenant.id, { code, name: 'again' })).rejects.toMatchObject({
      status: 409,
      code: '1005',
    });
  });

  it.each(['', '_leading', 'has space', 'x'.repeat(65), 'ünicode'])(
    'refuses the template code %j (400 1001)',
    async (code) => {
      await expect(createTemplate(t.db, a.tenant.id, { code, name: 'n' })).rejects.toMatchObject({
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
      const published = await publishDraft(trx, draft, 'tester');
      expect(published).toMatchObject({ status: 'published', version: 1, published_by: 'tester' });
      await expect(publishDraft(trx, published, 'tester')).rejects.toMatchObject({ status: 409 });
    });
  });

  it('drafts take no number: versions are numbered in order of publication', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    await t.db.transaction().execute(async (trx) => {
      const template = await getTemplateByCode(trx, a.tenant.id, code);
      const early = await createDraftVersion(trx, template, { tag: '1', content_html: '<p>1</p>' });
      const late = await createDraftVersion(trx, template, { tag: '2', content_html: '<p>2</p>' });
      expect((await publishDraft(trx, late, 't')).version).toBe(1);
      expect((await publishDraft(trx, early, 't')).version).toBe(2);
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
