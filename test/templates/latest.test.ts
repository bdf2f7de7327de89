import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withinPublishBound } from '../helpers/api.js';
import { expectErrorShape, json, startTestApp, type TestApp } from '../helpers/app.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { bothPaths } from '../helpers/two-paths.js';

const isoUtc = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe.each(stores)('GET /api/v1/consent-templates/{code}/latest on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;

  beforeAll(async () => {
    t = await startTestApp(store);
    a = await seedTenant(t.db);
  });
  afterAll(async () => {
    await t.close();
  });

  const get = (code: string, headers: Record<string, string> = {}) =>
    bothPaths(t.app, `/api/v1/consent-templates/${code}/latest`, { ...a.headers, ...headers });

  it('answers 200 {"data": V} with exactly the fields of V', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const v = await publish(t.db, a.tenant.id, code, {
      tag: '2.1',
      content_html: '<h2>Terms</h2><p>Text</p>',
    });
    const response = await get(code);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = json(response);
    expect(Object.keys(body)).toEqual(['data']);
    expect(body.data).toEqual({
      consent_version_id: v.consent_version_id,
      template_code: code,
      version: 1,
      tag: '2.1',
      content_html: '<h2>Terms</h2><p>Text</p>',
      file_url: `https://consent.test/api/content/${v.consent_version_id}.html`,
      allow_reconsent: true,
      published_at: expect.stringMatching(isoUtc),
    });
    expect(body.data.consent_version_id).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });

  it('answers the published version with the highest number, numbered 1, 2, 3 in order', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const versions = [];
    for (const tag of ['1.0', '1.1', '2.0']) {
      const published = await publish(t.db, a.tenant.id, code, { tag });
      versions.push(published);
      await withinPublishBound(
        async () => json(await get(code)).data.consent_version_id,
        (id) => id === published.consent_version_id,
      );
    }
    expect(versions.map((v) => v.version)).toEqual([1, 2, 3]);
    expect(json(await get(code)).data).toMatchObject({ version: 3, tag: '2.0' });
  });

  it('when the operator gave a file URL, answers it as file_url', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    await publish(t.db, a.tenant.id, code, { file_url: 'https://cdn.example.com/terms-v1.html' });
    expect(json(await get(code)).data.file_url).toBe('https://cdn.example.com/terms-v1.html');
  });

  it('when allow_reconsent is false, answers false', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    await publish(t.db, a.tenant.id, code, { allow_reconsent: false });
    expect(json(await get(code)).data.allow_reconsent).toBe(false);
  });

  it('when the template is unknown, answers 404 1004 Template not found.', async () => {
    const response = await get('no_such_template');
    expect(response.statusCode).toBe(404);
    expect(expectErrorShape(response)).toEqual({ code: '1004', message: 'Template not found.' });
  });

  it('an unknown template asked again while its absence is cached answers 404 1004 the same way', async () => {
    // The second request is answered from memory, in the same turn (Catalog.latestInMemory).
    const [first, second] = [await get('still_no_such'), await get('still_no_such')];
    expect([first.statusCode, second.statusCode]).toEqual([404, 404]);
    expect(expectErrorShape(second)).toEqual({ code: '1004', message: 'Template not found.' });
    expect(second.body).toBe(first.body);
  });

  it('when the template has no published version, answers 404 1004', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const response = await get(code);
    expect(response.statusCode).toBe(404);
    expect(expectErrorShape(response).code).toBe('1004');
  });

  it('a publish is answered by every request that starts more than 1 second after it', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    await publish(t.db, a.tenant.id, code, { tag: '1' });
    // The first version is now cached as the latest.
    expect(json(await get(code)).data.tag).toBe('1');
    const second = await publish(t.db, a.tenant.id, code, { tag: '2' });
    const committedAt = Date.now();
    await withinPublishBound(
      async () => json(await get(code)).data.consent_version_id,
      (id) => id === second.consent_version_id,
      committedAt,
    );
    // And it stays the answer.
    expect(json(await get(code)).data.consent_version_id).toBe(second.consent_version_id);
  });

  describe('ETag', () => {
    it('carries an ETag; a matching If-None-Match answers 304 with no body', async () => {
      const code = await seedTemplate(t.db, a.tenant.id);
      await publish(t.db, a.tenant.id, code);
      const first = await get(code);
      const etag = first.headers.etag as string;
      expect(etag).toMatch(/^"[^"]+"$/);
      const again = await get(code, { 'if-none-match': etag });
      expect(again.statusCode).toBe(304);
      expect(again.body).toBe('');
      expect(again.headers.etag).toBe(etag);
      expect(again.headers['x-request-id']).toBeTruthy();
    });

    it('matches an If-None-Match list and the weak form of the tag', async () => {
      const code = await seedTemplate(t.db, a.tenant.id);
      await publish(t.db, a.tenant.id, code);
      const etag = (await get(code)).headers.etag as string;
      expect((await get(code, { 'if-none-match': `"other", ${etag}` })).statusCode).toBe(304);
      expect((await get(code, { 'if-none-match': `W/${etag}` })).statusCode).toBe(304);
    });

    it('a request that also says Cache-Control: no-cache (as fetch does) still gets 304', async () => {
      const code = await seedTemplate(t.db, a.tenant.id);
      await publish(t.db, a.tenant.id, code);
      const etag = (await get(code)).headers.etag as string;
      const response = await get(code, {
        'if-none-match': etag,
        'cache-control': 'no-cache',
        pragma: 'no-cache',
      });
      expect(response.statusCode).toBe(304);
    });

    it('when the tag does not match, answers 200 with the body', async () => {
      const code = await seedTemplate(t.db, a.tenant.id);
      await publish(t.db, a.tenant.id, code);
      const response = await get(code, { 'if-none-match': '"stale"' });
      expect(response.statusCode).toBe(200);
      expect(json(response).data.template_code).toBe(code);
    });

    it('after a new version is published, the old ETag no longer matches', async () => {
      const code = await seedTemplate(t.db, a.tenant.id);
      await publish(t.db, a.tenant.id, code);
      const etag = (await get(code)).headers.etag as string;
      await publish(t.db, a.tenant.id, code);
      const response = await withinPublishBound(
        () => get(code, { 'if-none-match': etag }),
        (r) => r.statusCode !== 304,
      );
      expect(response.statusCode).toBe(200);
      expect(response.headers.etag).not.toBe(etag);
      expect(json(response).data.version).toBe(2);
    });
  });
});
