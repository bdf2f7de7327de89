/**
 * The tenant's own classification of cookies and hosts in the back-office (docs/cookie-scans.md,
 * "The tenant's overrides"): listed under the cookie pages, set and removed by an editor,
 * audited, bad input named beside its field, and only shown to a reviewer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listOverrides } from '../../src/cookie-scanner/index.js';
import type { TestApp } from '../helpers/app.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { storeAgnostic } from '../helpers/stores.js';
import { member } from './cookies-support.js';
import { type PageClient, signedIn, startBackofficeApp, textOf } from './support.js';

const path = '/backoffice/cookies/classification';

describe.each(storeAgnostic)('cookie classification in the back-office on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let admin: PageClient;

  beforeAll(async () => {
    t = await startBackofficeApp(store);
    a = await seedTenant(t.db);
    admin = await signedIn(t.app, a.tenant.email);
  });
  afterAll(() => t?.close());

  it('an editor classifies a cookie prefix and a host; the list shows them; one is removed; each step audited', async () => {
    expect(textOf((await admin.get(path)).body)).toContain('No classification of your own yet.');
    const saved = await admin.post(path, {
      kind: 'cookie',
      pattern: ' _ga* ',
      category: 'functional',
      provider: 'Our own analytics',
      purpose: '',
      retention: '13 months',
    });
    expect(saved.statusCode, textOf(saved.body)).toBe(303);
    expect(saved.headers.location).toBe(`${path}?notice=override_set`);
    await admin.get(path);
    await admin.post(path, {
      kind: 'host',
      pattern: 'Collect.Bank.Example',
      category: 'analytics',
      provider: '',
      purpose: '',
      retention: '',
    });
    const listed = textOf((await admin.get(path)).body).replace(/\s+/g, ' ');
    expect(listed).toContain('_ga* (cookie) functional Our own analytics — 13 months');
    expect(listed).toContain('collect.bank.example (host) analytics — — —');
    expect((await listOverrides(t.db, a.tenant.id)).map((o) => o.pattern)).toEqual([
      '_ga*',
      'collect.bank.example',
    ]);

    const removed = await admin.post(`${path}/remove`, {
      kind: 'host',
      pattern: 'collect.bank.example',
    });
    expect(removed.headers.location).toBe(`${path}?notice=override_removed`);
    expect((await listOverrides(t.db, a.tenant.id)).map((o) => o.pattern)).toEqual(['_ga*']);
    const audited = await t.db
      .selectFrom('audit_log')
      .select(['action', 'target'])
      .where('tenant_id', '=', a.tenant.id)
      .where('action', 'like', 'cookie_override.%')
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    expect(audited).toEqual([
      { action: 'cookie_override.set', target: 'cookie:_ga*' },
      { action: 'cookie_override.set', target: 'host:collect.bank.example' },
      { action: 'cookie_override.removed', target: 'host:collect.bank.example' },
    ]);
  });

  it('a host that is none or a category that is no key is named beside its field (400), and nothing is saved', async () => {
    const before = await listOverrides(t.db, a.tenant.id);
    await admin.get(path);
    const bad = await admin.post(path, {
      kind: 'host',
      pattern: 'not a host',
      category: 'Ads!',
      provider: '',
      purpose: '',
      retention: '',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain(
      'id="pattern-error" class="field-error">A cookie’s name (a prefix ends in *) or a host name.',
    );
    expect(bad.body).toContain(
      'id="category-error" class="field-error">necessary, a standard category or one of your own keys.',
    );
    expect(await listOverrides(t.db, a.tenant.id)).toEqual(before);
  });

  it('a reviewer sees the list but no form, and may not change it (403)', async () => {
    const reviewer = await member(t.app, t.db, a.tenant, 'classification-reviewer', ['reviewer']);
    const page = await reviewer.page.get(path);
    expect(page.statusCode).toBe(200);
    expect(textOf(page.body)).toContain('_ga*');
    expect(page.body).not.toContain('Classify a cookie or host');
    const refused = await reviewer.page.post(path, {
      kind: 'cookie',
      pattern: '_x',
      category: 'analytics',
      provider: '',
      purpose: '',
      retention: '',
    });
    expect(refused.statusCode).toBe(403);
  });
});
