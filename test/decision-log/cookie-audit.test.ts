/**
 * The log's audit over a log holding decisions and website visitors' cookie decisions: each
 * cookie leaf is recomputed from its `cookie_decisions` row (the visitor's fields opened with
 * their key), and a row changed, removed, unreadable or never logged is named as a decision's is.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { eraseCookieVisitor } from '../../src/cookies/index.js';
import { auditLog } from '../../src/decision-log/audit.js';
import { apiOf } from '../helpers/api.js';
import { json, startTestApp, type TestApp } from '../helpers/app.js';
import { type PublishedSystem, seedPublishedSystem } from '../helpers/cookies.js';
import { entriesOfLog } from '../helpers/log-entries.js';
import { sealedAsRead } from '../helpers/sealed.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';

describe.each(stores)('audit of a log with decisions and cookie decisions on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let site: PublishedSystem;
  /** Record ids as posted: decisions and cookie decisions alternating. */
  const logged: { id: string; kind: 'decision' | 'cookie'; visitor?: string }[] = [];

  async function choose(visitorId: string): Promise<string> {
    const response = await t.app.inject({
      method: 'POST',
      url: `/cookies/v1/${site.scope}/decisions`,
      headers: {
        origin: 'https://www.bank.example',
        'content-type': 'text/plain;charset=UTF-8',
        'user-agent': 'AuditTest/1.0',
      },
      remoteAddress: '198.51.100.20',
      payload: JSON.stringify({
        event_id: randomUUID(),
        visitor_id: visitorId,
        configuration_id: site.configurationId,
        configuration_version: site.version,
        method: 'reject-all',
        categories: { necessary: true, analytics: false, marketing: false },
        locale: 'en',
      }),
    });
    expect(response.statusCode, response.body).toBe(201);
    return json(response).data.decision_id;
  }

  beforeAll(async () => {
    t = await startTestApp(store, { LOG_INTEGRATE_INTERVAL_MS: '60000' });
    a = await seedTenant(t.db);
    site = await seedPublishedSystem(t.db, a.tenant.id, { categories: ['analytics', 'marketing'] });
    const code = await seedTemplate(t.db, a.tenant.id);
    const version = await publish(t.db, a.tenant.id, code);
    // Two batches, each ending with a wait for its receipt: two checkpoints.
    for (const batch of [3, 3]) {
      for (let i = 0; i < batch; i += 1) {
        const decided = await apiOf(t.app, a.headers).decide(
          `customer-${logged.length}`,
          version.consent_version_id,
          'given',
        );
        expect(decided.statusCode, decided.body).toBe(201);
        logged.push({ id: json(decided).data.decision_id, kind: 'decision' });
        const visitor = randomUUID();
        logged.push({ id: await choose(visitor), kind: 'cookie', visitor });
      }
      const last = logged.at(-1)?.id as string;
      const receipt = await t.app.inject({
        method: 'GET',
        url: `/api/v1/cookie-decisions/${last}/receipt?wait=true`,
        headers: a.headers,
      });
      expect(receipt.statusCode, receipt.body).toBe(200);
    }
  });
  afterAll(async () => {
    await t.close();
  });

  /** Applies a change behind the service's back, audits, and puts things back. */
  async function auditWith(change: () => Promise<unknown>, undo: () => Promise<unknown>) {
    await change();
    try {
      return await auditLog(t.db, t.vault, registry, a.tenant.id);
    } finally {
      await undo();
      expect((await auditLog(t.db, t.vault, registry, a.tenant.id)).ok).toBe(true);
    }
  }

  /** A cookie decision's row as it is kept, to be put back so (`sealedAsRead`). */
  const cookieRow = async (id: string) =>
    sealedAsRead(
      t.db,
      await t.db
        .selectFrom('cookie_decisions')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow(),
    );
  const setCookieRow = (id: string, values: Record<string, string | number | Buffer | null>) =>
    t.db.updateTable('cookie_decisions').set(values).where('id', '=', id).execute();
  /** The n-th cookie decision posted, and the index of its leaf in the log. */
  const nthCookie = async (n: number) => {
    const { id, visitor } = logged.filter((entry) => entry.kind === 'cookie')[n] as {
      id: string;
      visitor: string;
    };
    const entry = await entriesOfLog(t.db, a.tenant.id)
      .select('e.idx')
      .where('e.record_id', '=', id)
      .executeTakeFirstOrThrow();
    return { id, visitor, index: Number(entry.idx) };
  };

  it('is clean: every leaf, decisions and cookie decisions, matches its record', async () => {
    expect(await auditLog(t.db, t.vault, registry, a.tenant.id)).toMatchObject({
      // The configuration's and the version's publications, then 6 decisions and 6 choices.
      entries: 14,
      checkpoints: 2,
      erased_records: 0,
      ok: true,
      findings: [],
    });
  });

  it("names a cookie decision whose categories were changed in the store, at its leaf's index", async () => {
    const { id, index } = await nthCookie(1);
    const row = await cookieRow(id);
    const report = await auditWith(
      () =>
        setCookieRow(id, {
          categories: JSON.stringify({ necessary: true, analytics: true, marketing: false }),
        }),
      () => setCookieRow(id, { categories: row.categories }),
    );
    expect(report.ok).toBe(false);
    expect(report.findings).toEqual([
      {
        kind: 'record-differs-from-leaf',
        index,
        record_id: id,
        message: `the cookie decision record of leaf ${index} does not match the logged leaf`,
      },
    ]);
  });

  it.each([
    ['its method', { method: 'accept-all' }],
    ['its configuration version', { configuration_version: 7 }],
    ['its origin (in the evidence)', { origin: 'https://evil.example' }],
    ['its region (in the evidence), where none was known', { region: 'US-CA' }],
    ['its categories, to what is not JSON', { categories: '{"analytics":' }],
    [
      // As true and false these would write the logged leaf again: only their type differs.
      'its categories, to values that are not booleans',
      { categories: '{"analytics":0,"marketing":"","necessary":"yes"}' },
    ],
  ])('names a cookie decision with %s changed', async (_what, values) => {
    const { id, index } = await nthCookie(2);
    const row = await cookieRow(id);
    const original = Object.fromEntries(
      Object.keys(values).map((key) => [key, row[key as keyof typeof row]]),
    );
    const report = await auditWith(
      () => setCookieRow(id, values),
      () => setCookieRow(id, original),
    );
    expect(report.findings).toEqual([
      expect.objectContaining({ kind: 'record-differs-from-leaf', index, record_id: id }),
    ]);
  });

  it('names a cookie decision removed from the store, and one whose sealed fields were swapped with another’s', async () => {
    const { id, index } = await nthCookie(0);
    const row = await cookieRow(id);
    const removed = await auditWith(
      () => t.db.deleteFrom('cookie_decisions').where('id', '=', id).execute(),
      () => t.db.insertInto('cookie_decisions').values(row).execute(),
    );
    expect(removed.findings).toEqual([
      {
        kind: 'record-removed',
        index,
        record_id: id,
        message: `the record of leaf ${index} is no longer in the store`,
      },
    ]);
    // The sealed fields are bound to their record's id: another row's do not open here.
    const other = await cookieRow((await nthCookie(3)).id);
    const swapped = await auditWith(
      () => setCookieRow(id, { personal: other.personal, subject_id: other.subject_id }),
      () => setCookieRow(id, { personal: row.personal, subject_id: row.subject_id }),
    );
    expect(swapped.findings).toEqual([
      expect.objectContaining({ kind: 'record-unreadable', index, record_id: id }),
    ]);
  });

  it('names a cookie decision written without its leaf', async () => {
    const row = await cookieRow((await nthCookie(0)).id);
    const smuggled = { ...row, id: '0190e8a0-0000-7000-8000-00000000c00c', event_id: randomUUID() };
    const report = await auditWith(
      () => t.db.insertInto('cookie_decisions').values(smuggled).execute(),
      () => t.db.deleteFrom('cookie_decisions').where('id', '=', smuggled.id).execute(),
    );
    expect(report.findings).toEqual([
      expect.objectContaining({ kind: 'record-not-logged', record_id: smuggled.id }),
    ]);
  });

  it("checks an erased visitor's cookie decision by its commitments: clean, counted as erased, and a changed category or evidence still named", async () => {
    const { id, index, visitor } = await nthCookie(4);
    const row = await cookieRow(id);
    const by = {
      actorKind: 'operator',
      actor: 'command line',
      ip: 'local',
      userAgent: null,
    } as const;
    expect(
      await eraseCookieVisitor(t.db, t.vault, registry, a.tenant.id, visitor, by),
    ).toMatchObject({ erased: true, cookie_decisions: 1 });
    expect(await auditLog(t.db, t.vault, registry, a.tenant.id)).toMatchObject({
      ok: true,
      erased_records: 1,
      findings: [],
    });
    const report = await auditWith(
      () =>
        setCookieRow(id, {
          categories: JSON.stringify({ necessary: true, analytics: false, marketing: true }),
        }),
      () => setCookieRow(id, { categories: row.categories }),
    );
    expect(report.findings).toEqual([
      expect.objectContaining({ kind: 'record-differs-from-leaf', index, record_id: id }),
    ]);
    // The evidence commitment the erasure kept is checked too: the leaf commits to it.
    const kept = await t.db
      .selectFrom('erased_evidence')
      .select('evidence')
      .where('record_id', '=', id)
      .executeTakeFirstOrThrow();
    const setKept = (evidence: string) =>
      t.db.updateTable('erased_evidence').set({ evidence }).where('record_id', '=', id).execute();
    const changed = await auditWith(
      () => setKept(Buffer.alloc(32, 7).toString('base64')),
      () => setKept(kept.evidence),
    );
    expect(changed.findings).toEqual([
      expect.objectContaining({ kind: 'record-differs-from-leaf', index, record_id: id }),
    ]);
  });
});
