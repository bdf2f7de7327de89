/**
 * Erasing a website visitor: their key goes, so the visitor id, address and user agent of their
 * cookie choices can never be read again, while the choices stay and the decision log's audit
 * stays clean; other visitors are untouched, and the same id choosing again starts afresh.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { cookieDecisions, eraseCookieVisitor } from '../../src/cookies/index.js';
import { auditLog } from '../../src/decision-log/index.js';
import { AppError } from '../../src/platform/errors.js';
import { json, startTestApp, type TestApp } from '../helpers/app.js';
import { type PublishedSystem, seedPublishedSystem } from '../helpers/cookies.js';
import { seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';

const origin = 'https://www.bank.example';
const operator = {
  actorKind: 'operator',
  actor: 'command line',
  ip: 'local',
  userAgent: null,
} as const;

describe.each(stores)('erasing a website visitor on $name', (store) => {
  let t: TestApp;
  let tenantId: string;
  let site: PublishedSystem;

  beforeAll(async () => {
    t = await startTestApp(store);
    tenantId = (await seedTenant(t.db)).tenant.id;
    site = await seedPublishedSystem(t.db, tenantId, { categories: ['analytics'] });
  });
  afterAll(async () => t.close());

  async function choose(visitorId: string, analytics: boolean): Promise<string> {
    const response = await t.app.inject({
      method: 'POST',
      url: `/cookies/v1/${site.scope}/decisions`,
      headers: { origin, 'content-type': 'text/plain', 'user-agent': 'Browser/2.0' },
      remoteAddress: '198.51.100.23',
      payload: JSON.stringify({
        event_id: randomUUID(),
        visitor_id: visitorId,
        configuration_id: site.configurationId,
        configuration_version: site.version,
        method: 'custom',
        categories: { necessary: true, analytics },
        locale: 'en',
      }),
    });
    expect(response.statusCode, response.body).toBe(201);
    return json(response).data.decision_id;
  }

  async function listed() {
    const rows = [];
    for await (const row of cookieDecisions(t.db, t.vault, tenantId)) rows.push(row);
    return rows;
  }

  it('shreds the visitor’s personal data, keeps their choices provable, and leaves others alone', async () => {
    const visitor = randomUUID();
    const other = randomUUID();
    const theirs = [await choose(visitor, true), await choose(visitor.toUpperCase(), false)];
    const kept = await choose(other, true);

    const result = await eraseCookieVisitor(t.db, t.vault, registry, tenantId, visitor, operator);
    expect(result).toMatchObject({ erased: true, cookie_decisions: 2 });

    const rows = await listed();
    for (const id of theirs) {
      expect(rows.find((row) => row.decision_id === id)).toMatchObject({
        visitor_id: null,
        ip: null,
        user_agent: null,
        method: 'custom',
      });
    }
    expect(rows.find((row) => row.decision_id === kept)).toMatchObject({
      visitor_id: other,
      ip: '198.51.100.0',
      user_agent: 'Browser/2.0',
    });

    const entry = await t.db
      .selectFrom('audit_log')
      .select(['action', 'target', 'details'])
      .where('action', '=', 'cookie_visitor.erased')
      .executeTakeFirstOrThrow();
    expect(entry.target).toBe(result.subject_id);
    expect(JSON.stringify(entry)).not.toContain(visitor);

    // The log still proves every choice: the audit finds nothing wrong, and counts the erased.
    await expect
      .poll(
        async () => (await t.db.selectFrom('tlog_pending').select('record_id').execute()).length,
      )
      .toBe(0);
    const audit = await auditLog(t.db, t.vault, registry, tenantId);
    expect(audit.findings).toEqual([]);
    expect(audit.erased_records).toBe(2);

    // The same id choosing again is a new visitor to the store.
    const again = await choose(visitor, true);
    expect((await listed()).find((row) => row.decision_id === again)?.visitor_id).toBe(visitor);
  });

  it('says nothing was erased for a visitor the tenant never saw, and refuses an id that is no UUID', async () => {
    expect(
      await eraseCookieVisitor(t.db, t.vault, registry, tenantId, randomUUID(), operator),
    ).toEqual({
      erased: false,
      subject_id: null,
      cookie_decisions: 0,
      erased_at: null,
    });
    await expect(
      eraseCookieVisitor(t.db, t.vault, registry, tenantId, 'visitor-1', operator),
    ).rejects.toBeInstanceOf(AppError);
  });
});
