import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/platform/ids.js';
import { newSalt, subjectCommitment } from '../../src/proof/commitments.js';
import { decisionRecords } from '../../src/records/history.js';
import { sealPersonal } from '../../src/subjects/personal.js';
import type { PublishedVersion } from '../../src/templates/schemas.js';
import { getTenantSettings, setTenantSettings } from '../../src/tenants/service.js';
import { apiOf } from '../helpers/api.js';
import { subjectIdOf, type TestApp } from '../helpers/app.js';
import { storedLookup } from '../helpers/schema-history.js';
import { sealedToStore } from '../helpers/sealed.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { type PageClient, signedIn, startBackofficeApp, textOf } from './support.js';

describe.each(stores)('CSV exports, the dashboard and the audit log on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let b: SeededTenant;
  let pageA: PageClient;
  let codeX: string;
  let codeY: string;
  let vx: PublishedVersion;
  let vy: PublishedVersion;

  /** The customer's subject and key, made as the first decision makes them. */
  const subjects = new Map<string, { id: string; key: Buffer }>();
  async function subjectOf(tenantId: string, customer: string) {
    const known = subjects.get(`${tenantId}/${customer}`);
    if (known) return known;
    const id = newId();
    const { key, wrapped } = t.vault.newKey(tenantId, id);
    const salt = newSalt();
    const row = await sealedToStore(t.db, {
      tenant_id: tenantId,
      id,
      lookup: await storedLookup(t.db, t.vault.lookup(tenantId, customer)),
      wrapped_key: wrapped,
      salt,
      commitment: subjectCommitment(salt, customer),
      created_at: new Date().toISOString(),
      erased_at: null,
    });
    await t.db.insertInto('subjects').values(row).execute();
    subjects.set(`${tenantId}/${customer}`, { id, key });
    return { id, key };
  }

  /** Adds a decision as of `decidedAt` (the API always records "now"). */
  async function addDecision(
    tenant: SeededTenant,
    version: PublishedVersion,
    customer: string,
    decidedAt: string,
    fields: { decision?: 'given' | 'reject' | 'withdraw'; userAgent?: string | null } = {},
  ): Promise<string> {
    const template = await t.db
      .selectFrom('template_versions')
      .select(['template_id', 'content_sha256'])
      .where('id', '=', version.consent_version_id)
      .executeTakeFirstOrThrow();
    const id = newId();
    const subject = await subjectOf(tenant.tenant.id, customer);
    const row = await sealedToStore(t.db, {
      tenant_id: tenant.tenant.id,
      id,
      subject_id: subject.id,
      template_id: template.template_id,
      consent_version_id: version.consent_version_id,
      version: version.version,
      decision: fields.decision ?? 'given',
      seq: Math.floor(Math.random() * 1e9),
      decided_at: decidedAt,
      api_key_id: tenant.apiKey.id,
      personal: sealPersonal(subject.key, id, {
        customer_id: customer,
        ip: '192.0.2.10',
        user_agent: fields.userAgent === undefined ? 'Test/1.0' : fields.userAgent,
      }),
      idempotency_key: null,
    });
    await t.db.insertInto('decisions').values(row).execute();
    return id;
  }

  beforeAll(async () => {
    t = await startBackofficeApp(store);
    a = await seedTenant(t.db);
    b = await seedTenant(t.db);
    pageA = await signedIn(t.app, a.tenant.email);
    codeX = await seedTemplate(t.db, a.tenant.id);
    codeY = await seedTemplate(t.db, a.tenant.id);
    vx = await publish(t.db, a.tenant.id, codeX, { tag: '1.0' });
    vy = await publish(t.db, a.tenant.id, codeY, { tag: '3.1' });
    await addDecision(a, vx, 'x-early', '2026-01-31T23:59:59.999Z');
    await addDecision(a, vx, 'x-first-day', '2026-02-01T00:00:00.000Z');
    await addDecision(a, vx, '+tricky', '2026-02-10T12:00:00.000Z', {
      decision: 'reject',
      userAgent: 'Agent "quoted", with comma\nand newline',
    });
    await addDecision(a, vx, 'x-last-day', '2026-02-28T23:59:59.999Z', { userAgent: null });
    await addDecision(a, vx, 'x-late', '2026-03-01T00:00:00.000Z');
    await addDecision(a, vy, 'y-inside', '2026-02-15T08:00:00.000Z');
    const bCode = await seedTemplate(t.db, b.tenant.id);
    const bv = await publish(t.db, b.tenant.id, bCode);
    await addDecision(b, bv, 'b-customer', '2026-02-15T08:00:00.000Z');
  });
  afterAll(async () => {
    await t.close();
  });

  const csvOf = (body: string) =>
    parse(body, { columns: true, skip_empty_lines: true }) as Array<Record<string, string>>;

  it('exports the decisions of one template in a date range (last day included), oldest first, with the evidence', async () => {
    const response = await pageA.get(
      `/backoffice/exports/decisions.csv?template=${codeX}&from=2026-02-01&to=2026-02-28`,
    );
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toMatch(/^attachment; filename="decisions-/);
    const rows = csvOf(response.body);
    expect(rows.map((r) => r.customer_id)).toEqual(['x-first-day', "'+tricky", 'x-last-day']);
    expect(rows[1]).toMatchObject({
      template_code: codeX,
      version: '1',
      tag: '1.0',
      decision: 'reject',
      api_key_name: 'test key',
      api_key_prefix: a.apiKey.prefix,
      ip: '192.0.2.10',
      user_agent: 'Agent "quoted", with comma\nand newline',
      content_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      // Templates made without a locale are in English.
      locale: 'en',
    });
    expect(rows[2]?.user_agent).toBe('');
    expect(response.body.split('\r\n')[0]).toBe(
      'decided_at,customer_id,template_code,version,tag,decision,decision_id,api_key_name,api_key_prefix,ip,user_agent,content_sha256,locale,decided_on,time_zone',
    );
  });

  it("reads days in the tenant's time zone in the export and in the Decisions CSV alike, and says so on both pages and in the file", async () => {
    const bangkok = await seedTenant(t.db);
    await setTenantSettings(t.db, bangkok.tenant.id, {
      ...(await getTenantSettings(t.db, bangkok.tenant.id)),
      timeZone: 'Asia/Bangkok',
    });
    const code = await seedTemplate(t.db, bangkok.tenant.id);
    const v = await publish(t.db, bangkok.tenant.id, code);
    // Bangkok is UTC+7 all year: 1 February there runs from 31 January 17:00 UTC to 1 February
    // 17:00 UTC.
    await addDecision(bangkok, v, 'bkk-31-jan', '2026-01-31T16:59:59.999Z');
    await addDecision(bangkok, v, 'bkk-1-feb-first', '2026-01-31T17:00:00.000Z');
    await addDecision(bangkok, v, 'bkk-1-feb-last', '2026-02-01T16:59:59.999Z');
    await addDecision(bangkok, v, 'bkk-2-feb', '2026-02-01T17:00:00.000Z');
    const page = await signedIn(t.app, bangkok.tenant.email);
    const day = 'from=2026-02-01&to=2026-02-01';
    for (const path of [
      `/backoffice/exports/decisions.csv?${day}`,
      `/backoffice/decisions.csv?${day}`,
    ]) {
      const response = await page.get(path);
      expect(response.statusCode, path).toBe(200);
      const rows = csvOf(response.body);
      expect(
        rows.map((r) => [r.customer_id, r.decided_at, r.decided_on, r.time_zone]),
        path,
      ).toEqual([
        ['bkk-1-feb-first', '2026-01-31T17:00:00.000Z', '2026-02-01', 'Asia/Bangkok'],
        ['bkk-1-feb-last', '2026-02-01T16:59:59.999Z', '2026-02-01', 'Asia/Bangkok'],
      ]);
    }
    for (const path of ['/backoffice/exports', '/backoffice/decisions']) {
      expect(textOf((await page.get(path)).body), path).toContain('Days are those of Asia/Bangkok');
    }
  });

  it('the export.decisions audit entry records every filter of the Decisions CSV, locale and time zone included', async () => {
    const response = await pageA.get(
      `/backoffice/decisions.csv?template=${codeX}&version=1&decision=reject&locale=en&from=2026-02-01&to=2026-02-28`,
    );
    expect(response.statusCode).toBe(200);
    const entry = await t.db
      .selectFrom('audit_log')
      .select('details')
      .where('tenant_id', '=', a.tenant.id)
      .where('action', '=', 'export.decisions')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(entry.details ?? '{}')).toEqual({
      template: codeX,
      version: '1',
      decision: 'reject',
      locale: 'en',
      from: '2026-02-01',
      to: '2026-02-28',
      time_zone: 'UTC',
    });
  });

  it("exports every template of the tenant without a filter, never another tenant's rows", async () => {
    const rows = csvOf((await pageA.get('/backoffice/exports/decisions.csv')).body);
    const customers = rows.map((r) => r.customer_id);
    expect(customers).toEqual(expect.arrayContaining(['x-early', 'y-inside', 'x-late']));
    expect(customers).not.toContain('b-customer');
    const audit = await t.db
      .selectFrom('audit_log')
      .selectAll()
      .where('tenant_id', '=', a.tenant.id)
      .where('action', '=', 'export.decisions')
      .execute();
    expect(audit.length).toBeGreaterThanOrEqual(2);
  });

  it.each([
    ['a date that is no day', 'from=2026-02-30'],
    ['a last day before the first', 'from=2026-02-10&to=2026-02-01'],
    ['an unknown template', 'template=nope'],
  ])('refuses %s with the form (400)', async (_what, query) => {
    const response = await pageA.get(`/backoffice/exports/decisions.csv?${query}`);
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
  });

  it('reads a large export a page at a time, each row once and in order, ties on the time included', async () => {
    const c = await seedTenant(t.db);
    const code = await seedTemplate(t.db, c.tenant.id);
    const v = await publish(t.db, c.tenant.id, code);
    const expected: string[] = [];
    for (let i = 0; i < 60; i += 1) {
      // Three decisions in each millisecond: the page boundaries fall inside ties.
      const at = new Date(Date.UTC(2026, 0, 1) + Math.floor(i / 3)).toISOString();
      expected.push(await addDecision(c, v, `bulk-${i}`, at));
    }
    const seen: string[] = [];
    for await (const row of decisionRecords((read) => read(t.db), t.vault, c.tenant.id, {}, 7))
      seen.push(row.decision_id);
    const byTimeThenId = [...expected].sort((p, q) => (p < q ? -1 : 1));
    expect(seen).toHaveLength(60);
    expect(new Set(seen).size).toBe(60);
    expect(seen).toEqual(byTimeThenId);
  });

  it('the dashboard draws, per template, an SVG of decisions per day over 30 days', async () => {
    const api = apiOf(t.app, a.headers);
    for (const customer of ['d1', 'd2']) await api.decide(customer, vx.consent_version_id, 'given');
    await api.decide('d3', vx.consent_version_id, 'reject');
    const page = await pageA.get('/backoffice/dashboard');
    expect(page.statusCode).toBe(200);
    const sections = page.body.split('<article>').slice(1);
    const x = sections.find((s) => s.includes(codeX)) ?? '';
    expect(x).toMatch(
      /<svg class="chart-plot" viewBox="0 0 \d+ \d+" preserveAspectRatio="none" role="img" aria-labelledby="chart-\d+-title chart-\d+-desc"/,
    );
    const today = new Date().toISOString().slice(0, 10);
    expect(x).toContain(`<title>${today}: 2 given, 1 reject, 0 withdraw</title>`);
    expect(x.match(/<g><title>/g)).toHaveLength(30);
    expect(x.match(/class="bar-given"/g)).toHaveLength(1);
    expect(x).toContain('3 decisions in the 30 days');
    expect(textOf(x)).toContain(`${today} 2 1 0`);
    // Decisions older than 30 days are not drawn.
    expect(x).not.toContain('2026-02-10:');
  });

  it("the audit log lists the tenant's actions, newest first, and downloads as CSV", async () => {
    await pageA.get('/backoffice/customers?customer_id=x-early');
    const page = await pageA.get('/backoffice/audit');
    expect(page.statusCode).toBe(200);
    const text = textOf(page.body);
    expect(text).toContain('customer.looked_up');
    expect(text).toContain('sign_in');
    expect(text.indexOf('customer.looked_up')).toBeLessThan(text.indexOf('sign_in '));
    const csv = await pageA.get('/backoffice/audit.csv');
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    const rows = csvOf(csv.body);
    expect(rows.map((r) => r.action)).toEqual(
      expect.arrayContaining(['sign_in', 'customer.looked_up', 'export.decisions']),
    );
    expect(new Set(rows.map((r) => r.tenant))).toEqual(new Set([a.tenant.alias]));
    const bRows = csvOf(
      (await (await signedIn(t.app, b.tenant.email)).get('/backoffice/audit.csv')).body,
    );
    expect(bRows.every((r) => r.tenant === b.tenant.alias)).toBe(true);
  });

  it('the audit log pages back in time with an "Older" link', async () => {
    const c = await seedTenant(t.db);
    const code = await seedTemplate(t.db, c.tenant.id);
    const v = await publish(t.db, c.tenant.id, code);
    // A look-up is logged under the customer's random id (never the customer id): p0..p54
    // each get a record first, so each look-up names its own.
    const numberOf = new Map<string, string>();
    for (let i = 0; i < 55; i += 1) {
      const decided = await apiOf(t.app, c.headers).decide(`p${i}`, v.consent_version_id, 'given');
      expect(decided.statusCode).toBe(201);
      const subjectId = await subjectIdOf(t, c.tenant.id, `p${i}`);
      if (subjectId === undefined) throw new Error(`no subject for p${i}`);
      numberOf.set(subjectId, String(i));
    }
    const page = await signedIn(t.app, c.tenant.email);
    for (let i = 0; i < 55; i += 1) await page.get(`/backoffice/customers?customer_id=p${i}`);
    const first = await page.get('/backoffice/audit');
    const older = /href="(\/backoffice\/audit\?before=[^"]+)"/.exec(first.body)?.[1];
    expect(older).toBeDefined();
    const second = await page.get((older ?? '').replace(/&amp;/g, '&'));
    const targetsOf = (body: string) =>
      [...body.matchAll(/<td>([0-9a-f-]{36})<\/td>/g)].map((m) => numberOf.get(m[1] ?? ''));
    const firstTargets = targetsOf(first.body);
    const secondTargets = targetsOf(second.body);
    expect(first.body).not.toMatch(/>p\d+</);
    expect(firstTargets).toHaveLength(50);
    expect(firstTargets[0]).toBe('54');
    expect(secondTargets).toEqual(['4', '3', '2', '1', '0']);
  });
});
