import { createHash } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sniffContentFile } from '../../src/templates/files.js';
import { apiOf } from '../helpers/api.js';
import { json, type TestApp } from '../helpers/app.js';
import { type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { storeAgnostic } from '../helpers/stores.js';
import {
  formToken,
  fourEyesOff,
  type PageClient,
  publishThroughReview,
  signedIn,
  startBackofficeApp,
  textOf,
  versionPagePath,
  writeDraft,
} from './support.js';

const pdf = Buffer.from(
  '%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n',
  'latin1',
);
const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

describe('the type of an uploaded file, read from its bytes', () => {
  it.each([
    ['a PDF', pdf, 'application/pdf'],
    ['an HTML document', Buffer.from('<!DOCTYPE html>\n<html><p>Hi</p></html>'), 'text/html'],
    ['HTML after white space and a BOM', Buffer.from('\uFEFF \n\t<html lang="th">'), 'text/html'],
    ['an HTML fragment starting with <p>', Buffer.from('<p>ข้อตกลง</p>'), 'text/html'],
    ['HTML starting with a comment', Buffer.from('<!--x--><div>y</div>'), 'text/html'],
    ['a PNG named .pdf', png, undefined],
    ['plain text', Buffer.from('Terms and conditions'), undefined],
    ['<pre> (no signature of HTML)', Buffer.from('<pre>x</pre>'), undefined],
    ['HTML that is not UTF-8', Buffer.from([0x3c, 0x70, 0x3e, 0xff, 0xfe]), undefined],
  ])('%s', (_what, bytes, expected) => {
    expect(sniffContentFile(bytes)).toBe(expected);
  });
});

/** A draft's content file: uploaded in the back-office, kept in the store, served once live. */
describe.each(storeAgnostic)('content files on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let admin: PageClient;

  beforeAll(async () => {
    t = await startBackofficeApp(store);
    a = await seedTenant(t.db);
    await fourEyesOff(t.db, a.tenant.id);
    admin = await signedIn(t.app, a.tenant.email);
  });
  afterAll(() => t?.close());

  const versionPath = versionPagePath;
  const draft = (code: string, fields: Record<string, string> = {}) =>
    writeDraft(admin, code, { tag: '1.0', content_html: '<p>Terms.</p>', ...fields });

  /** Posts the upload form from the version's page, as a browser does (multipart). */
  async function upload(
    code: string,
    id: string,
    file: { name: string; bytes: Buffer } | undefined,
    token?: string,
    page = versionPath(code, id),
  ): Promise<LightMyRequestResponse> {
    await admin.get(page);
    const form = new FormData();
    form.append('_csrf', token ?? formToken(admin.lastPage) ?? '');
    if (file) form.append('file', new Blob([file.bytes]), file.name);
    const request = new Request('http://localhost/', { method: 'POST', body: form });
    return t.app.inject({
      method: 'POST',
      url: `${versionPath(code, id)}/file`,
      headers: {
        'content-type': String(request.headers.get('content-type')),
        cookie: [...admin.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
      },
      payload: Buffer.from(await request.arrayBuffer()),
    });
  }

  const rowOf = (id: string) =>
    t.db
      .selectFrom('template_versions')
      .select(['file_url', 'content_file'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  const storedFiles = async (id: string) =>
    (await t.db.selectFrom('content_files').select('size').where('version_id', '=', id).execute())
      .length;
  const audit = async (action: string) =>
    t.db
      .selectFrom('audit_log')
      .select(['target', 'details'])
      .where('tenant_id', '=', a.tenant.id)
      .where('action', '=', action)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .executeTakeFirst();

  it('a PDF uploaded to a draft is shown and audited, hidden from the API until published, then served at file_url as uploaded', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const id = await draft(code);
    const sha256 = createHash('sha256').update(pdf).digest('hex');

    const uploaded = await upload(code, id, { name: 'Terms 2026 (TH).pdf', bytes: pdf });
    expect(uploaded.statusCode, textOf(uploaded.body)).toBe(303);
    expect(uploaded.headers.location).toBe(`${versionPath(code, id)}?notice=file_uploaded`);
    expect(await rowOf(id)).toEqual({ file_url: null, content_file: 'application/pdf' });
    const page = textOf((await admin.get(`${versionPath(code, id)}?notice=file_uploaded`)).body);
    expect(page).toContain('Content file uploaded.');
    expect(page).toContain(`File Terms 2026 (TH).pdf (PDF, 1 KiB) File SHA-256 ${sha256}`);
    const entry = await audit('version.file_uploaded');
    expect(entry?.target).toBe(`${code} 1.0`);
    expect(JSON.parse(String(entry?.details))).toEqual({
      version_id: id,
      file_name: 'Terms 2026 (TH).pdf',
      media_type: 'application/pdf',
      size: pdf.length,
      sha256,
    });

    // The back-office shows it at once, sandboxed; the public URL waits for publication.
    const preview = await admin.get(`${versionPath(code, id)}/file`);
    expect(preview.statusCode).toBe(200);
    expect(preview.headers['content-type']).toBe('application/pdf');
    expect(preview.headers['content-security-policy']).toContain('sandbox');
    expect(preview.rawPayload.equals(pdf)).toBe(true);
    const publicUrl = `/api/content/${id}/file.pdf`;
    expect((await t.app.inject({ url: publicUrl })).statusCode).toBe(404);

    expect((await publishThroughReview(admin, code, id)).statusCode).toBe(303);
    const latest = json(await apiOf(t.app, a.headers).latest(code)).data;
    expect(latest.file_url).toBe(`https://consent.test${publicUrl}`);
    const served = await t.app.inject({ url: publicUrl });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toBe('application/pdf');
    expect(served.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(served.headers['x-content-type-options']).toBe('nosniff');
    expect(served.headers['content-disposition']).toBe(`inline; filename="Terms 2026 (TH).pdf"`);
    expect(served.rawPayload.equals(pdf)).toBe(true);
    expect((await t.app.inject({ url: `/api/content/${id}/file.html` })).statusCode).toBe(404);
    // The generated HTML page of its text stays where it was.
    expect((await t.app.inject({ url: `/api/content/${id}.html` })).statusCode).toBe(200);

    // Published, it keeps its file: no upload, no removal.
    const late = await upload(code, id, { name: 'other.pdf', bytes: pdf });
    expect(late.statusCode).toBe(409);
    expect(textOf(late.body)).toContain('Only a draft can change its content file');
  });

  it.each([
    [
      'a PNG, whatever its name',
      { name: 'terms.pdf', bytes: png },
      'must be a PDF or an HTML document in UTF-8',
    ],
    [
      'a file over 5 MiB',
      { name: 'big.pdf', bytes: Buffer.concat([pdf, Buffer.alloc(5 * 1024 * 1024)]) },
      'is larger than 5 MiB',
    ],
    ['an empty file', { name: 'empty.pdf', bytes: Buffer.alloc(0) }, 'is empty: choose a file'],
    ['no file', undefined, 'is empty: choose a file'],
  ])('%s is refused on the page, saying why; nothing is kept', async (_what, file, issue) => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const id = await draft(code);
    const refused = await upload(code, id, file);
    expect(refused.statusCode).toBe(400);
    expect(textOf(refused.body)).toContain(`The content file ${issue}.`);
    expect(refused.body).toContain('aria-invalid="true"');
    expect(await rowOf(id)).toEqual({ file_url: null, content_file: null });
    expect(await storedFiles(id)).toBe(0);
  });

  it('an upload without the form token is refused', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const id = await draft(code);
    const refused = await upload(code, id, { name: 't.pdf', bytes: pdf }, 'not-the-token');
    expect(refused.statusCode).toBe(403);
    expect(await storedFiles(id)).toBe(0);
  });

  it("a draft without a file says where the text that stands in for it is: below, in the locale's content", async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const id = await draft(code, { content_html: '<p>Stand-in terms.</p>' });
    const text = textOf((await admin.get(versionPath(code, id))).body);
    const note = text.indexOf('No file uploaded');
    expect(note).toBeGreaterThan(-1);
    expect(text.slice(note, note + 200)).toContain('or the text below');
    expect(text.indexOf('Stand-in terms.', note)).toBeGreaterThan(note);
  });

  it('an HTML file replaces the file URL; a URL saved later replaces the file; removing it is audited', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const id = await draft(code, { file_url: 'https://example.test/terms.pdf' });
    const html = Buffer.from('<!doctype html><html><body><p>ข้อกำหนด</p></body></html>');
    expect((await upload(code, id, { name: 'terms.htm', bytes: html })).statusCode).toBe(303);
    expect(await rowOf(id)).toEqual({ file_url: null, content_file: 'text/html' });
    const preview = await admin.get(`${versionPath(code, id)}/file`);
    expect(preview.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(preview.rawPayload.equals(html)).toBe(true);
    expect(textOf((await admin.get(versionPath(code, id))).body)).toContain('terms.html (HTML');

    // Removed: audited, and the API would answer the generated page again.
    await admin.get(versionPath(code, id));
    const removed = await admin.post(`${versionPath(code, id)}/file/remove`, {});
    expect(removed.headers.location).toBe(`${versionPath(code, id)}?notice=file_removed`);
    expect(await rowOf(id)).toEqual({ file_url: null, content_file: null });
    expect(await storedFiles(id)).toBe(0);
    expect((await audit('version.file_removed'))?.target).toBe(`${code} 1.0`);

    // Uploaded again, then a URL saved with the draft: the URL is the file now.
    expect((await upload(code, id, { name: 'terms.html', bytes: html })).statusCode).toBe(303);
    await admin.get(versionPath(code, id));
    const saved = await admin.post(versionPath(code, id), {
      tag: '1.0',
      content_html: '<p>Terms.</p>',
      file_url: 'https://example.test/v2.pdf',
      allow_reconsent: 'true',
    });
    expect(saved.statusCode).toBe(303);
    expect(await rowOf(id)).toEqual({
      file_url: 'https://example.test/v2.pdf',
      content_file: null,
    });
    expect(await storedFiles(id)).toBe(0);
  });

  it("another locale's text has its own file: uploaded from its tab, served at its own file_url once live", async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const id = await draft(code);
    await admin.get(`${versionPath(code, id)}?locale=new`);
    const saved = await admin.post(`${versionPath(code, id)}/locales`, {
      locale: 'th',
      content_html: '<p>ข้อกำหนด</p>',
    });
    expect(saved.statusCode).toBe(303);
    const th = await t.db
      .selectFrom('template_versions')
      .select('id')
      .where('release_id', '=', id)
      .where('locale', '=', 'th')
      .executeTakeFirstOrThrow();
    const tab = `${versionPath(code, id)}?locale=th`;
    const refused = await upload(code, th.id, { name: 'x.png', bytes: png }, undefined, tab);
    expect(refused.statusCode).toBe(400);
    const refusedText = textOf(refused.body);
    expect(refusedText).toContain('The content file must be a PDF or an HTML document in UTF-8.');
    expect(refused.body).toMatch(/\?locale=th" aria-current="page">Thai/);
    const uploaded = await upload(code, th.id, { name: 'th.pdf', bytes: pdf }, undefined, tab);
    expect(uploaded.headers.location).toBe(
      `${versionPath(code, id)}?locale=th&notice=file_uploaded`,
    );
    expect(await rowOf(th.id)).toEqual({ file_url: null, content_file: 'application/pdf' });
    expect(await rowOf(id)).toEqual({ file_url: null, content_file: null });

    expect((await publishThroughReview(admin, code, id)).statusCode).toBe(303);
    const thai = await t.app.inject({
      url: `/api/v1/consent-templates/${code}/latest?locale=th`,
      headers: a.headers,
    });
    expect(json(thai).data.file_url).toBe(`https://consent.test/api/content/${th.id}/file.pdf`);
    const plain = json(await apiOf(t.app, a.headers).latest(code)).data;
    expect(plain.file_url).toBe(`https://consent.test/api/content/${id}.html`);
    const served = await t.app.inject({ url: `/api/content/${th.id}/file.pdf` });
    expect(served.rawPayload.equals(pdf)).toBe(true);
  });
});
