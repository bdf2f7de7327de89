import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPartner, setReleasePartners } from '../../src/partners/index.js';
import { publishOutsideReview } from '../../src/templates/index.js';
import { json, startTestApp, type TestApp } from '../helpers/app.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { bothPaths } from '../helpers/two-paths.js';

describe.each(stores)('partners in latest and pending on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let b: SeededTenant;
  const actorOf = (s: SeededTenant) =>
    ({
      tenantId: s.tenant.id,
      actorKind: 'operator',
      actor: 'test',
      ip: 'local',
      userAgent: null,
    }) as const;

  beforeAll(async () => {
    t = await startTestApp(store);
    a = await seedTenant(t.db);
    b = await seedTenant(t.db);
    for (const [code, name] of [
      ['zeta-bank', 'Zeta Bank'],
      ['acme-insure', 'Acme Insurance'],
      ['unused', 'Unused'],
    ]) {
      await t.db
        .transaction()
        .execute((trx) => createPartner(trx, actorOf(a), a.tenant.id, { code, name }));
    }
    await t.db
      .transaction()
      .execute((trx) =>
        createPartner(trx, actorOf(b), b.tenant.id, { code: 'b-only', name: 'Of tenant b' }),
      );
  });
  afterAll(() => t?.close());

  const publishWith = (s: SeededTenant, code: string, tag: string, partners?: string[]) =>
    t.db
      .transaction()
      .execute((trx) =>
        publishOutsideReview(
          trx,
          actorOf(s),
          s.tenant.id,
          code,
          { tag, content_html: `<p>Text ${tag}</p>` },
          partners === undefined ? {} : { partners },
        ),
      );
  const latest = (s: SeededTenant, code: string, headers: Record<string, string> = {}) =>
    bothPaths(t.app, `/api/v1/consent-templates/${code}/latest`, { ...s.headers, ...headers });
  const pending = (s: SeededTenant, code: string) =>
    bothPaths(t.app, `/api/v1/customers/customer-1/consents/templates/${code}/pending`, s.headers);
  const publishedAt = async (id: string) =>
    (
      await t.db
        .selectFrom('template_versions')
        .select('published_at')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    ).published_at;

  it('a version listing no partner answers latest and pending byte for byte as before partners existed', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const v = await publish(t.db, a.tenant.id, code, {
      tag: '1.0',
      content_html: '<p>No partners</p>',
    });
    const id = v.consent_version_id;
    const at = await publishedAt(id);
    const version = `{"consent_version_id":"${id}","template_code":"${code}","version":1,"tag":"1.0","content_html":"<p>No partners</p>","file_url":"https://consent.test/api/content/${id}.html","allow_reconsent":true,"published_at":"${at}"}`;
    expect((await latest(a, code)).body).toBe(`{"data":${version}}`);
    expect((await pending(a, code)).body).toBe(
      `{"data":{"accepted":false,"consent_version":${version},"decision":null,"decided_at":null}}`,
    );
    const localized = await latest(a, code, { 'accept-language': 'en' });
    expect(localized.body).toBe(`{"data":${version.slice(0, -1)},"locale":"en"}}`);
  });

  it('a version listing partners answers them, by code, with their names, in latest and pending alike', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const published = await publishWith(a, code, '1.0', ['zeta-bank', 'acme-insure']);
    const expected = [
      { code: 'acme-insure', name: 'Acme Insurance' },
      { code: 'zeta-bank', name: 'Zeta Bank' },
    ];
    const body = json(await latest(a, code));
    expect(body.data.consent_version_id).toBe(published.id);
    expect(body.data.partners).toEqual(expected);
    expect(Object.keys(body.data).at(-1)).toBe('partners');
    expect(json(await pending(a, code)).data.consent_version.partners).toEqual(expected);
    const localized = json(await latest(a, code, { 'accept-language': 'en' })).data;
    expect(localized).toMatchObject({ locale: 'en', partners: expected });
  });

  it('the next version without partners answers without the field again', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    await publishWith(a, code, '1.0', ['acme-insure']);
    await publishWith(a, code, '2.0');
    // The catalog re-reads which version is the latest within its bound.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const data = json(await latest(a, code)).data;
    expect(data.tag).toBe('2.0');
    expect('partners' in data).toBe(false);
  });

  it("an unknown partner code, or another tenant's, is refused with 400 1001 naming partners, and nothing is published", async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    for (const partners of [['nobody'], ['acme-insure', 'b-only']]) {
      await expect(publishWith(a, code, '1.0', partners)).rejects.toMatchObject({
        status: 400,
        code: '1001',
        details: [{ field: 'partners' }],
      });
    }
    expect((await latest(a, code)).statusCode).toBe(404);
  });

  it('a published release keeps its list: a partner it lists cannot be deleted, and the answer is read once per cache fill', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const published = await publishWith(a, code, '1.0', ['acme-insure']);
    const first = (await latest(a, code)).body;
    // A change of the store's rows behind the cache's back is not seen within the bound: the
    // answer comes from memory, not from a query per request.
    await t.db
      .transaction()
      .execute((trx) => setReleasePartners(trx, a.tenant.id, published.id, ['zeta-bank']));
    expect((await latest(a, code)).body).toBe(first);
  });
});
