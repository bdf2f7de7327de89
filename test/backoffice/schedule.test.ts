import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app/app.js';
import { instantOfLocalTime } from '../../src/backoffice/web/time-zone.js';
import { createDb } from '../../src/platform/db.js';
import { getTenantSettings, setTenantSettings } from '../../src/tenants/service.js';
import { apiOf, withinPublishBound } from '../helpers/api.js';
import { json, type TestApp } from '../helpers/app.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';
import {
  type PageClient,
  signedIn,
  startBackofficeApp,
  textOf,
  versionPagePath,
  writeDraft,
} from './support.js';

/** The customer's standing on one template, in their consents' answer. */
function standingOn(answer: LightMyRequestResponse, code: string) {
  const templates = json(answer).data.templates as Array<{
    template_code: string;
    latest_version: { version: number };
  }>;
  return templates.find((one) => one.template_code === code);
}

describe('go-live times typed in a zone', () => {
  it.each([
    ['Asia/Bangkok', '2026-12-01T09:00', '2026-12-01T02:00:00.000Z'],
    ['Asia/Bangkok', '2026-12-01T09:00:30', '2026-12-01T02:00:30.000Z'],
    ['UTC', '2027-01-01T00:00', '2027-01-01T00:00:00.000Z'],
    ['America/New_York', '2026-07-04T12:00', '2026-07-04T16:00:00.000Z'],
    // 02:30 does not exist in Berlin that night: read as after the change (03:30 CEST).
    ['Europe/Berlin', '2026-03-29T02:30', '2026-03-29T01:30:00.000Z'],
    // 02:30 happens twice: read as the later (CET).
    ['Europe/Berlin', '2026-10-25T02:30', '2026-10-25T01:30:00.000Z'],
  ])('%s %s is %s', (zone, local, expected) => {
    expect(instantOfLocalTime(local, zone)).toBe(expected);
  });

  it.each(['2026-02-30T09:00', '2026-12-01T24:00', '2026-12-01T09:60', '2026-12-01', 'soon', ''])(
    '%j is no time',
    (local) => {
      expect(instantOfLocalTime(local, 'UTC')).toBeUndefined();
    },
  );
});

/**
 * Approving a release to go live later: until then the API does not show it, on any instance;
 * then every instance answers it within the contract's second. An approver may cancel it first.
 */
describe.each(stores)('scheduled releases on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let admin: PageClient;
  const zone = 'Asia/Bangkok';
  /** Bangkok keeps UTC+7 all year: a wall time there is the instant plus 7 hours. */
  const bangkokWallTime = (instant: number) =>
    new Date(instant + 7 * 3_600_000).toISOString().slice(0, 19);

  beforeAll(async () => {
    t = await startBackofficeApp(store);
    a = await seedTenant(t.db);
    const settings = await getTenantSettings(t.db, a.tenant.id);
    // One person approves here: four eyes is the review test's subject.
    await setTenantSettings(t.db, a.tenant.id, { ...settings, timeZone: zone, fourEyes: false });
    admin = await signedIn(t.app, a.tenant.email);
  });
  afterAll(() => t?.close());

  const versionPath = versionPagePath;

  /** A draft taken through submit and pass: it waits for approval. */
  async function reviewed(code: string, tag: string): Promise<string> {
    const id = await writeDraft(admin, code, { tag, content_html: `<p>Terms, tag ${tag}.</p>` });
    for (const step of ['submit', 'pass']) {
      await admin.get(`${versionPath(code, id)}/review`);
      expect((await admin.post(`${versionPath(code, id)}/${step}`, {})).statusCode).toBe(303);
    }
    return id;
  }

  async function approve(code: string, id: string, effectiveAt: string) {
    await admin.get(`${versionPath(code, id)}/review`);
    return admin.post(`${versionPath(code, id)}/approve`, {
      effective_at: effectiveAt,
      ...(effectiveAt === '' ? { publish_now: 'true' } : {}),
    });
  }

  const rowOf = (id: string) =>
    t.db
      .selectFrom('template_versions')
      .select(['status', 'version', 'published_at'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  const auditOf = async (action: string) =>
    (
      await t.db
        .selectFrom('audit_log')
        .select(['target', 'details'])
        .where('tenant_id', '=', a.tenant.id)
        .where('action', '=', action)
        .orderBy('created_at')
        .orderBy('id')
        .execute()
    ).map((e) => ({
      target: e.target,
      details: typeof e.details === 'string' ? JSON.parse(e.details) : e.details,
    }));

  it('a release approved for later is numbered but hidden from latest, pending, decisions and its content file; the back-office shows it; a second approval waits; cancelling gives its number back', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const v1 = await publish(t.db, a.tenant.id, code, { tag: '1.0' });
    const api = apiOf(t.app, a.headers);
    expect((await api.decide('cus_1', v1.consent_version_id, 'given')).statusCode).toBe(201);
    const id = await reviewed(code, '2.0');

    const approved = await approve(code, id, '2099-06-01T09:00');
    expect(approved.statusCode, textOf(approved.body)).toBe(303);
    expect(approved.headers.location).toBe(`/backoffice/templates/${code}?notice=scheduled`);
    // 09:00 in Bangkok is 02:00 UTC.
    expect(await rowOf(id)).toEqual({
      status: 'published',
      version: 2,
      published_at: '2099-06-01T02:00:00.000Z',
    });
    const published = await auditOf('version.published');
    expect(published.at(-1)?.details).toMatchObject({
      version_id: id,
      version: 2,
      customers_made_pending: 1,
      effective_at: '2099-06-01T02:00:00.000Z',
    });

    // The API: latest and pending answer version 1; the new id is unknown to decisions and
    // to the content files.
    const latest = await api.latest(code);
    expect(json(latest).data).toEqual(v1);
    const pending = json(await api.pending('cus_1', code)).data;
    expect(pending).toMatchObject({ accepted: true, consent_version: v1 });
    const early = await api.decide('cus_2', id, 'given');
    expect(early.statusCode).toBe(404);
    expect(json(early)).toEqual({ code: '1004', message: 'Consent version not found.' });
    expect((await t.app.inject({ url: `/api/content/${id}.html` })).statusCode).toBe(404);
    expect(
      (await t.app.inject({ url: `/api/content/${v1.consent_version_id}.html` })).statusCode,
    ).toBe(200);

    // The back-office: the template page, the dashboard, the review page (which counts the
    // customers again at every visit until it goes live).
    const page = textOf((await admin.get(`/backoffice/templates/${code}`)).body);
    expect(page).toContain(
      'Latest version 1 (tag 1.0), published ' /* the live one, not the scheduled one */,
    );
    expect(page).toContain('Scheduled version 2 (tag 2.0) goes live 2099-06-01 09:00:00 GMT+7');
    const dashboard = textOf((await admin.get('/backoffice/dashboard')).body);
    expect(dashboard).toContain('Scheduled releases');
    expect(dashboard).toContain('2 (tag 2.0) 2099-06-01 09:00:00 GMT+7');
    const review = () => admin.get(`${versionPath(code, id)}/review`).then((r) => textOf(r.body));
    expect(await review()).toContain(
      'Approved: it goes live as version 2 at 2099-06-01 09:00:00 GMT+7; until then the API answers the current latest version. 1 customer decided on the current latest version',
    );
    expect((await api.decide('cus_3', v1.consent_version_id, 'given')).statusCode).toBe(201);
    expect(await review()).toContain('2 customers decided on the current latest version');

    // Another release cannot be approved while this one waits: the page says so, and a post
    // is refused.
    const next = await reviewed(code, '3.0');
    const nextPage = textOf((await admin.get(`${versionPath(code, next)}/review`)).body);
    expect(nextPage).toContain(
      'Version 2 (tag 2.0) is scheduled to go live at 2099-06-01 09:00:00 GMT+7: it must go live, or be cancelled, before this one can be approved.',
    );
    expect(nextPage).not.toContain('Approve and publish');
    const refused = await admin.post(`${versionPath(code, next)}/approve`, {
      effective_at: '',
      publish_now: 'true',
    });
    expect(refused.statusCode).toBe(409);
    expect(textOf(refused.body)).toContain(
      'Version 2 (tag 2.0) is scheduled to go live at 2099-06-01T02:00:00.000Z: cancel it, or wait until it is live, before publishing another.',
    );
    expect((await rowOf(next)).status).toBe('reviewed');

    // Cancelled: it waits for approval again, without a number; audited, and on its timeline.
    await admin.get(`${versionPath(code, id)}/review`);
    const cancelled = await admin.post(`${versionPath(code, id)}/cancel-schedule`, {});
    expect(cancelled.statusCode).toBe(303);
    expect(cancelled.headers.location).toBe(
      `/backoffice/templates/${code}/versions/${id}/review?notice=schedule_cancelled`,
    );
    expect(await rowOf(id)).toEqual({ status: 'reviewed', version: null, published_at: null });
    expect((await auditOf('version.schedule_cancelled')).at(-1)).toEqual({
      target: `${code} 2.0`,
      details: { version_id: id, version: 2, effective_at: '2099-06-01T02:00:00.000Z' },
    });
    const timeline = textOf((await admin.get(String(cancelled.headers.location))).body);
    expect(timeline).toContain('Go-live cancelled: the version waits for approval again.');
    expect(timeline).toMatch(/Approved by .* Go-live cancelled by /);
    const again = await admin.post(`${versionPath(code, id)}/cancel-schedule`, {});
    expect(again.statusCode).toBe(409);

    // The other release now takes number 2, at once (empty time).
    expect((await approve(code, next, '')).headers.location).toBe(
      `/backoffice/templates/${code}?notice=published`,
    );
    expect(await rowOf(next)).toMatchObject({ status: 'published', version: 2 });
    const live = await withinPublishBound(
      () => api.latest(code),
      (r) => json(r).data.version === 2,
    );
    expect(json(live).data).toMatchObject({ consent_version_id: next, tag: '3.0' });
  });

  it('a go-live time already past publishes at once; one that names no time is refused on the page', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const id = await reviewed(code, '1.0');
    const bad = await approve(code, id, '2026-13-01T09:00');
    expect(bad.statusCode).toBe(400);
    expect(textOf(bad.body)).toContain(
      'The go-live time must be a date and a time, such as 2026-12-01 09:00.',
    );
    expect(bad.body).toContain('value="2026-13-01T09:00"');
    expect((await rowOf(id)).status).toBe('reviewed');

    const before = new Date().toISOString();
    const past = await approve(code, id, '2020-01-01T00:00');
    expect(past.headers.location).toBe(`/backoffice/templates/${code}?notice=published`);
    const row = await rowOf(id);
    expect(row.status).toBe('published');
    expect(String(row.published_at) >= before).toBe(true);
    const live = await withinPublishBound(
      () => apiOf(t.app, a.headers).latest(code),
      (r) => r.statusCode === 200,
    );
    expect(json(live).data.consent_version_id).toBe(id);
    expect((await auditOf('version.published')).at(-1)?.details).not.toHaveProperty('effective_at');
  });

  it('at the go-live time both instances switch, within the contract second; none shows it before', async () => {
    // A second instance on the same store, with its own cache of `latest`.
    const db = createDb(t.config);
    const other = await buildApp(t.config, db, { logger: false });
    await other.ready();
    try {
      const code = await seedTemplate(t.db, a.tenant.id);
      const v1 = await publish(t.db, a.tenant.id, code, { tag: '1.0' });
      const instances = [apiOf(t.app, a.headers), apiOf(other, a.headers)];
      for (const api of instances) {
        expect((await api.decide('cus_1', v1.consent_version_id, 'given')).statusCode).toBe(201);
        expect(json(await api.latest(code)).data.version).toBe(1);
      }
      const id = await reviewed(code, '2.0');
      // Whole seconds: the form's time has no fractions. The lead only has to outlast the
      // approval and one round of reads on each instance.
      const goLive = Math.ceil((Date.now() + budget(1000)) / 1000) * 1000;
      expect((await approve(code, id, bangkokWallTime(goLive))).statusCode).toBe(303);
      expect((await rowOf(id)).published_at).toBe(new Date(goLive).toISOString());

      // Before the go-live, every answer that came back in time is version 1.
      const seenBefore = [0, 0];
      while (Date.now() < goLive - 50) {
        for (const [n, api] of instances.entries()) {
          const latest = await api.latest(code);
          const pending = await api.pending('cus_1', code);
          const consents = await api.consents('cus_1');
          if (Date.now() >= goLive) break;
          expect(json(latest).data.version).toBe(1);
          expect(json(pending).data).toMatchObject({ accepted: true, consent_version: v1 });
          expect(standingOn(consents, code)).toMatchObject({
            latest_version: { version: 1 },
            accepted: true,
          });
          seenBefore[n] = (seenBefore[n] ?? 0) + 1;
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      expect(seenBefore.every((n) => n > 0)).toBe(true);

      // From the go-live on: every request that starts a second later sees version 2.
      for (const api of instances) {
        const latest = await withinPublishBound(
          () => api.latest(code),
          (r) => json(r).data.version === 2,
          goLive,
        );
        expect(json(latest).data).toMatchObject({
          consent_version_id: id,
          published_at: new Date(goLive).toISOString(),
        });
        await withinPublishBound(
          () => api.pending('cus_1', code),
          (r) => json(r).data.accepted === false,
          goLive,
        );
        // The customer's consents read the time of each request too (a prepared statement).
        await withinPublishBound(
          () => api.consents('cus_1'),
          (r) => standingOn(r, code)?.latest_version.version === 2,
          goLive,
        );
      }
      expect((await instances[1]?.decide('cus_1', id, 'given'))?.statusCode).toBe(201);
    } finally {
      await other.close();
      await db.destroy();
    }
  });
});
