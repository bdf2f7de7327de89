/**
 * The cookie pages: systems, a draft's editor, review under four eyes, publication and its script
 * tag, copies and deletion, and refusals shown as pages (never a 500). The people: the tenant's
 * admin, a writer who holds the Editor and Approver roles (so that only four eyes keeps them from
 * approving what they wrote), a reviewer and an approver.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getConfiguration } from '../../src/cookies/index.js';
import type { TestApp } from '../helpers/app.js';
import { publishedTag } from '../helpers/cookies.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { storeAgnostic } from '../helpers/stores.js';
import { formFields, member } from './cookies-support.js';
import { PageClient, signedIn, startBackofficeApp, textOf } from './support.js';

const configurationOf = (location: unknown) =>
  /\/cookies\/configurations\/([0-9a-f-]{36})/.exec(String(location))?.[1] ?? '';

describe.each(storeAgnostic)('the cookie pages on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let b: SeededTenant;
  let admin: PageClient;
  let writer: { page: PageClient; email: string };
  let reviewer: { page: PageClient; email: string };
  let approver: { page: PageClient; email: string };
  let scope = '';

  beforeAll(async () => {
    t = await startBackofficeApp(store);
    a = await seedTenant(t.db);
    b = await seedTenant(t.db);
    admin = await signedIn(t.app, a.tenant.email);
    writer = await member(t.app, t.db, a.tenant, 'writer', ['editor', 'approver']);
    reviewer = await member(t.app, t.db, a.tenant, 'reviewer', ['reviewer']);
    approver = await member(t.app, t.db, a.tenant, 'approver', ['approver']);
  });
  afterAll(() => t?.close());

  const audit = (action: string) =>
    t.db
      .selectFrom('audit_log')
      .select(['actor', 'target', 'details'])
      .where('tenant_id', '=', a.tenant.id)
      .where('action', '=', action)
      .execute();

  /** Makes a draft from the new-configuration form as `page`'s user; answers its id. */
  const newDraft = async (page: PageClient, name: string, categories = 'analytics') => {
    const made = await page.submit(
      '/backoffice/cookies/configurations/new',
      '/backoffice/cookies/configurations',
      { system: scope, name, effective_date: '2026-07-01', categories },
    );
    expect(made.statusCode, textOf(made.body)).toBe(303);
    return configurationOf(made.headers.location);
  };

  /** Takes a step from the configuration's page as `page`'s user. */
  const step = async (page: PageClient, id: string, path: string, fields = {}) => {
    await page.get(`/backoffice/cookies/configurations/${id}`);
    return page.post(`/backoffice/cookies/configurations/${id}/${path}`, fields);
  };

  it('an admin adds a system: the list shows its name, scope and origins, in their one form', async () => {
    const made = await admin.submit(
      '/backoffice/cookies/systems/new',
      '/backoffice/cookies/systems',
      {
        name: 'Public site',
        origins: 'https://www.bank.example\r\n\r\nhttps://bank.example/',
      },
    );
    expect(made.statusCode).toBe(303);
    scope = /\/cookies\/systems\/(cs_[0-9a-f]{20})\?notice=system_created$/.exec(
      String(made.headers.location),
    )?.[1] as string;
    expect(scope).toMatch(/^cs_[0-9a-f]{20}$/);
    const list = textOf((await admin.get('/backoffice/cookies/systems')).body);
    expect(list).toContain(
      `Public site ${scope} https://www.bank.example https://bank.example none`,
    );
    expect(await audit('cookie_system.created')).toEqual([
      {
        actor: a.tenant.email,
        target: scope,
        details: JSON.stringify({
          name: 'Public site',
          origins: ['https://www.bank.example', 'https://bank.example'],
        }),
      },
    ]);
  });

  it("a bad origin is named by its line, a taken name by its field (400); another tenant's system is not found", async () => {
    const bad = await admin.submit(
      '/backoffice/cookies/systems/new',
      '/backoffice/cookies/systems',
      {
        name: 'Shop',
        origins: 'https://shop.bank.example\nftp://files.bank.example',
      },
    );
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toMatch(/^text\/html/);
    expect(textOf(bad.body)).toContain(
      'Line 2 must be an origin such as https://www.bank.example (scheme, host, port).',
    );
    const taken = await admin.submit(
      '/backoffice/cookies/systems/new',
      '/backoffice/cookies/systems',
      {
        name: 'Public site',
        origins: 'https://other.bank.example',
      },
    );
    expect(taken.statusCode).toBe(400);
    expect(textOf(taken.body)).toContain('A system of that name exists.');
    const other = await signedIn(t.app, b.tenant.email);
    expect((await other.get(`/backoffice/cookies/systems/${scope}`)).statusCode).toBe(404);
  });

  it("the system's page changes its name and origins, audited", async () => {
    const page = await admin.get(`/backoffice/cookies/systems/${scope}`);
    const fields = formFields(page.body, `/backoffice/cookies/systems/${scope}`);
    expect(fields).toEqual({
      name: 'Public site',
      origins: 'https://www.bank.example\nhttps://bank.example',
    });
    const saved = await admin.post(`/backoffice/cookies/systems/${scope}`, {
      ...fields,
      name: 'Bank website',
    });
    expect(saved.headers.location).toBe(
      `/backoffice/cookies/systems/${scope}?notice=system_changed`,
    );
    expect((await audit('cookie_system.changed')).map((e) => JSON.parse(e.details ?? ''))).toEqual([
      { name: 'Bank website', origins: ['https://www.bank.example', 'https://bank.example'] },
    ]);
  });

  it('a writer makes a draft; the editor saves texts, categories, layout and lifetime as the form says', async () => {
    const id = await newDraft(writer.page, 'Spring banner', 'analytics');
    const path = `/backoffice/cookies/configurations/${id}`;
    const editor = await writer.page.get(`${path}/edit`);
    expect(editor.statusCode).toBe(200);
    const fields = formFields(editor.body, path);
    expect(fields.title__en).toBe('We use cookies');
    expect(fields.name__analytics__th).toBe('คุกกี้เพื่อการวิเคราะห์');
    const saved = await writer.page.post(path, {
      ...fields,
      title__en: 'Cookies at the bank',
      policy_url__en: 'https://www.bank.example/cookies',
      lifetime_days: '180',
      layout_kind: 'box',
      layout_position: 'bottom-right',
      color_accent: '#112233',
      category_functional: 'true',
      own_key_0: 'loyalty',
      own_required_0: 'true',
    });
    expect(saved.statusCode, textOf(saved.body)).toBe(303);
    expect(saved.headers.location).toBe(`${path}?notice=saved`);
    const stored = await getConfiguration(t.db, a.tenant.id, id);
    expect(stored.content.categories.map((c) => [c.key, c.required])).toEqual([
      ['necessary', true],
      ['analytics', false],
      ['functional', false],
      ['loyalty', true],
    ]);
    expect(stored.content.categories[2]?.texts.en?.name).toBe('Functional');
    expect(stored.content.categories[3]?.texts).toEqual({
      en: { name: 'loyalty', description: '' },
      th: { name: 'loyalty', description: '' },
    });
    expect(stored.content.texts.en?.title).toBe('Cookies at the bank');
    expect(stored.content.texts.en?.policy_url).toBe('https://www.bank.example/cookies');
    expect(stored.content.lifetime_days).toBe(180);
    expect(stored.content.layout).toEqual({
      kind: 'box',
      position: 'bottom-right',
      colors: { background: '#ffffff', text: '#1f2933', accent: '#112233' },
    });

    // The category added gets its own fields; its name is changed and its row emptied later.
    const again = formFields((await writer.page.get(`${path}/edit`)).body, path);
    expect(again.own_key_0).toBe('loyalty');
    await writer.page.post(path, { ...again, name__loyalty__en: 'Loyalty programme' });
    const renamed = await getConfiguration(t.db, a.tenant.id, id);
    expect(renamed.content.categories[3]?.texts.en?.name).toBe('Loyalty programme');
    const third = formFields((await writer.page.get(`${path}/edit`)).body, path);
    const { category_functional: _off, ...withoutFunctional } = third;
    await writer.page.post(path, { ...withoutFunctional, own_key_0: '' });
    const fewer = await getConfiguration(t.db, a.tenant.id, id);
    expect(fewer.content.categories.map((c) => c.key)).toEqual(['necessary', 'analytics']);
  });

  it('the editor sets the cookies each refusable category removes and what an own category counts as; a bad line is named beside its field', async () => {
    const id = await newDraft(writer.page, 'Cookie lists', 'analytics');
    const path = `/backoffice/cookies/configurations/${id}`;
    const fields = formFields((await writer.page.get(`${path}/edit`)).body, path);
    expect(fields.cookies__analytics).toBe('');
    expect(fields.own_maps_to_0).toBe('');
    const saved = await writer.page.post(path, {
      ...fields,
      cookies__analytics: '_ga*\r\n  _gid .bank.example /  \n\n',
      own_key_0: 'prefs',
      own_maps_to_0: 'functional',
    });
    expect(saved.statusCode, textOf(saved.body)).toBe(303);
    const stored = await getConfiguration(t.db, a.tenant.id, id);
    expect(stored.content.categories.find((c) => c.key === 'analytics')?.cookies).toEqual([
      { name: '_ga*' },
      { name: '_gid', domain: '.bank.example', path: '/' },
    ]);
    const prefs = stored.content.categories.find((c) => c.key === 'prefs');
    expect(prefs).toMatchObject({ key: 'prefs', required: false, maps_to: 'functional' });
    expect(prefs).not.toHaveProperty('cookies');

    // Shown again as saved; the new category has its own list now.
    const again = formFields((await writer.page.get(`${path}/edit`)).body, path);
    expect(again.cookies__analytics).toBe('_ga*\n_gid .bank.example /');
    expect(again.own_maps_to_0).toBe('functional');
    expect(again.cookies__prefs).toBe('');
    await writer.page.post(path, { ...again, cookies__prefs: 'pref_lang', own_maps_to_0: '' });
    const listed = await getConfiguration(t.db, a.tenant.id, id);
    expect(listed.content.categories.find((c) => c.key === 'prefs')).toMatchObject({
      cookies: [{ name: 'pref_lang' }],
    });
    expect(listed.content.categories.find((c) => c.key === 'prefs')).not.toHaveProperty('maps_to');

    // Made required, a category keeps its list as its declaration, which the form no longer
    // edits, and the banner removes none of it (a required category is never refused).
    const third = formFields((await writer.page.get(`${path}/edit`)).body, path);
    await writer.page.post(path, { ...third, own_required_0: 'true' });
    const required = await getConfiguration(t.db, a.tenant.id, id);
    expect(required.content.categories.find((c) => c.key === 'prefs')).toMatchObject({
      required: true,
      cookies: [{ name: 'pref_lang' }],
    });
    expect(formFields((await writer.page.get(`${path}/edit`)).body, path)).not.toHaveProperty(
      'cookies__prefs',
    );

    const bad = await writer.page.post(path, { ...third, cookies__analytics: 'bad;name' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain(
      'id="cookies__analytics-error" class="field-error">One cookie a line, at most 30',
    );
    expect(formFields(bad.body, path).cookies__analytics).toBe('bad;name');
    const unchanged = await getConfiguration(t.db, a.tenant.id, id);
    expect(unchanged.content_sha256).toBe(required.content_sha256);
  });

  it('the editor edits what the declaration says of a listed cookie after a |; a line without one keeps it', async () => {
    const id = await newDraft(writer.page, 'Declared cookies', 'analytics');
    const path = `/backoffice/cookies/configurations/${id}`;
    const fields = formFields((await writer.page.get(`${path}/edit`)).body, path);
    const lines = '_ga* .bank.example | Google | 2 years | Tells visitors apart\n_gid';
    const saved = await writer.page.post(path, { ...fields, cookies__analytics: lines });
    expect(saved.statusCode, textOf(saved.body)).toBe(303);
    const stored = await getConfiguration(t.db, a.tenant.id, id);
    const locale = stored.content.default_locale;
    expect(stored.content.categories.find((c) => c.key === 'analytics')?.cookies).toEqual([
      {
        name: '_ga*',
        domain: '.bank.example',
        provider: 'Google',
        retention: '2 years',
        purpose: { [locale]: 'Tells visitors apart' },
      },
      { name: '_gid' },
    ]);
    const again = formFields((await writer.page.get(`${path}/edit`)).body, path);
    expect(again.cookies__analytics).toBe(lines);

    // Without a |, a line keeps what the declaration said; with one, it says it anew.
    await writer.page.post(path, {
      ...again,
      cookies__analytics: '_ga* .bank.example\n_gid | | 1 day',
    });
    const kept = await getConfiguration(t.db, a.tenant.id, id);
    expect(kept.content.categories.find((c) => c.key === 'analytics')?.cookies).toEqual([
      {
        name: '_ga*',
        domain: '.bank.example',
        provider: 'Google',
        retention: '2 years',
        purpose: { [locale]: 'Tells visitors apart' },
      },
      { name: '_gid', retention: '1 day' },
    ]);
    const long = await writer.page.post(path, {
      ...again,
      cookies__analytics: `_ga* | ${'x'.repeat(101)}`,
    });
    expect(long.statusCode).toBe(400);
    expect(long.body).toContain(
      'id="cookies__analytics-error" class="field-error">One cookie a line',
    );
  });

  it('the editor sets the rules by region, a rule a line, keeps them through other edits, and names a bad line beside its field', async () => {
    const id = await newDraft(writer.page, 'Regional banner', 'analytics');
    const path = `/backoffice/cookies/configurations/${id}`;
    const fields = formFields((await writer.page.get(`${path}/edit`)).body, path);
    expect([fields.mode, fields.regions]).toEqual(['opt-in', '']);
    const before = await getConfiguration(t.db, a.tenant.id, id);
    // Saved as shown, a content without rules stays without them: nothing changes.
    await writer.page.post(path, fields);
    expect((await getConfiguration(t.db, a.tenant.id, id)).content_sha256).toBe(
      before.content_sha256,
    );

    const saved = await writer.page.post(path, {
      ...fields,
      regions: 'opt-in: th, EEA gb\r\n\r\n  opt-out: us-ca US-CO  ',
    });
    expect(saved.statusCode, textOf(saved.body)).toBe(303);
    const stored = await getConfiguration(t.db, a.tenant.id, id);
    expect(stored.content.regions).toEqual([
      { mode: 'opt-in', codes: ['TH', 'EEA', 'GB'] },
      { mode: 'opt-out', codes: ['US-CA', 'US-CO'] },
    ]);
    const again = formFields((await writer.page.get(`${path}/edit`)).body, path);
    expect(again.regions).toBe('opt-in: TH EEA GB\nopt-out: US-CA US-CO');
    await writer.page.post(path, { ...again, lifetime_days: '180' });
    expect((await getConfiguration(t.db, a.tenant.id, id)).content.regions).toEqual(
      stored.content.regions,
    );

    for (const [regions, message] of [
      ['opt-in: TH\nsometimes: GB', 'Line 2: '],
      ['opt-in: TH XX', 'Line 1: must be a country (TH), a subdivision of one (US-CA), EU or EEA'],
      ['opt-in: TH\nopt-out: th', 'Line 2: is in rule 0 already'],
    ] as const) {
      const bad = await writer.page.post(path, { ...again, regions });
      expect(bad.statusCode, regions).toBe(400);
      expect(bad.body).toContain(`id="regions-error" class="field-error">${message}`);
      expect(formFields(bad.body, path).regions).toBe(regions);
    }
    expect((await getConfiguration(t.db, a.tenant.id, id)).content.lifetime_days).toBe(180);
  });

  it('what the content refuses comes back beside its fields (400), and nothing is saved', async () => {
    const id = await newDraft(writer.page, 'Refused banner');
    const path = `/backoffice/cookies/configurations/${id}`;
    const before = await getConfiguration(t.db, a.tenant.id, id);
    const fields = formFields((await writer.page.get(`${path}/edit`)).body, path);
    const colour = await writer.page.post(path, { ...fields, color_accent: 'red' });
    expect(colour.statusCode).toBe(400);
    expect(colour.body).toContain(
      'id="color_accent-error" class="field-error">A colour such as #0b5cad.',
    );
    const texts = await writer.page.post(path, {
      ...fields,
      title__th: '',
      lifetime_days: '0',
      policy_url__en: 'javascript:alert(1)',
    });
    expect(texts.statusCode).toBe(400);
    expect(texts.body).toContain('id="title__th-error" class="field-error">1 to 200 characters.');
    expect(texts.body).toContain(
      'id="lifetime_days-error" class="field-error">A number of days, 1 to 730.',
    );
    expect(texts.body).toContain(
      'id="policy_url__en-error" class="field-error">An http:// or https:// address, or nothing.',
    );
    // What was typed stays in the form.
    expect(formFields(texts.body, path).policy_url__en).toBe('javascript:alert(1)');
    const twice = await writer.page.post(path, { ...fields, own_key_0: 'analytics' });
    expect(twice.statusCode).toBe(400);
    expect(textOf(twice.body)).toContain('A category names a category twice: each key once.');
    const after = await getConfiguration(t.db, a.tenant.id, id);
    expect(after.content_sha256).toBe(before.content_sha256);
  });

  it('a locale is added from the built-in texts or the default locale, never over one it has, and removed after a tick', async () => {
    const id = await newDraft(writer.page, 'Locales banner');
    const path = `/backoffice/cookies/configurations/${id}`;
    await writer.page.get(`${path}/edit`);
    const th = await writer.page.post(`${path}/locales`, { locale: 'TH' });
    expect(th.statusCode).toBe(409);
    expect(textOf(th.body)).toContain(
      'This configuration already has th texts: change them in the form.',
    );
    const bad = await writer.page.post(`${path}/locales`, { locale: 'not a tag' });
    expect(bad.statusCode).toBe(400);
    expect(textOf(bad.body)).toContain('A BCP 47 language tag, such as th or en-GB.');
    const added = await writer.page.post(`${path}/locales`, { locale: 'de' });
    expect(added.headers.location).toBe(`${path}/edit?notice=locale_added`);
    const withDe = await getConfiguration(t.db, a.tenant.id, id);
    expect(Object.keys(withDe.content.texts)).toEqual(['en', 'th', 'de']);
    // No built-in German: the default locale's texts, to be translated.
    expect(withDe.content.texts.de).toEqual(withDe.content.texts.en);
    expect(withDe.content.categories[0]?.texts.de?.name).toBe('Necessary');
    const enGb = await writer.page.post(`${path}/locales`, { locale: 'en-gb' });
    expect(enGb.statusCode).toBe(303);
    expect((await getConfiguration(t.db, a.tenant.id, id)).content.texts['en-GB']?.accept_all).toBe(
      'Accept all',
    );

    const unticked = await writer.page.post(`${path}/locales/de/remove`, {});
    expect(unticked.statusCode).toBe(400);
    expect(textOf(unticked.body)).toContain('Tick the box to confirm.');
    const removed = await writer.page.post(`${path}/locales/de/remove`, { confirm: 'true' });
    expect(removed.headers.location).toBe(`${path}/edit?notice=locale_removed`);
    const page = await writer.page.get(`${path}/edit`);
    expect(page.body).not.toContain(`action="${path}/locales/en/remove"`);
    const defaultLocale = await writer.page.post(`${path}/locales/en/remove`, { confirm: 'true' });
    expect(defaultLocale.statusCode).toBe(400);
    expect(textOf(defaultLocale.body)).toContain(
      'The locale is the default locale: choose another default locale before removing it.',
    );
    expect(Object.keys((await getConfiguration(t.db, a.tenant.id, id)).content.texts)).toEqual([
      'en',
      'th',
      'en-GB',
    ]);
  });

  it('the dashboard lists a banner under "Waiting for you" for whoever may take its next step, and for no one four eyes keeps from it', async () => {
    const id = await newDraft(writer.page, 'Autumn banner');
    const link = `<a href="/backoffice/cookies/configurations/${id}">Autumn banner (version `;
    const waitingOn = async (page: PageClient) => {
      const body = (await page.get('/backoffice/dashboard')).body;
      const section = body.slice(body.indexOf('<h2 id="waiting">'));
      return section.slice(0, section.indexOf('</section>'));
    };
    const rowOf = (section: string) => {
      const at = section.indexOf(link);
      return at < 0 ? undefined : textOf(section.slice(at, section.indexOf('</tr>', at)));
    };
    // A draft never submitted is its writer's own business.
    expect(rowOf(await waitingOn(reviewer.page))).toBeUndefined();

    await step(writer.page, id, 'submit', { comment: 'Ready' });
    expect(rowOf(await waitingOn(reviewer.page))).toMatch(
      /Autumn banner \(version \d+\).*your review.*submitted/,
    );
    // The writer submitted it: four eyes keeps them from its review; the approver has no review to give.
    expect(rowOf(await waitingOn(writer.page))).toBeUndefined();
    expect(rowOf(await waitingOn(approver.page))).toBeUndefined();

    await step(reviewer.page, id, 'pass');
    expect(rowOf(await waitingOn(approver.page))).toMatch(/your approval.*review passed/);
    expect(rowOf(await waitingOn(writer.page))).toBeUndefined();
    expect(rowOf(await waitingOn(reviewer.page))).toBeUndefined();

    await step(approver.page, id, 'reject', { comment: 'Not now' });
    expect(rowOf(await waitingOn(approver.page))).toBeUndefined();
  });

  it('four eyes: the writer submits, a reviewer passes, the writer gets no Approve button and a POST is refused 403; the approver approves and publishes, and the tag is shown', async () => {
    const id = await newDraft(writer.page, 'Summer banner');
    const path = `/backoffice/cookies/configurations/${id}`;
    const submitted = await step(writer.page, id, 'submit', { comment: 'Ready' });
    expect(submitted.headers.location).toBe(`${path}?notice=submitted`);
    const passed = await step(reviewer.page, id, 'pass');
    expect(passed.headers.location).toBe(`${path}?notice=passed`);

    const writersView = await writer.page.get(path);
    expect(textOf(writersView.body)).toContain(
      'Four eyes: you submitted this configuration, so someone else must approve it.',
    );
    expect(writersView.body).not.toContain(`formaction="${path}/approve"`);
    expect(writersView.body).not.toContain('>Approve<');
    expect(writersView.body).toContain(`formaction="${path}/reject"`);
    const refused = await writer.page.post(`${path}/approve`, { publish_now: 'true' });
    expect(refused.statusCode).toBe(403);
    expect(textOf(refused.body)).toContain(
      'Four eyes: you submitted this configuration, so someone else must approve it.',
    );
    expect((await getConfiguration(t.db, a.tenant.id, id)).status).toBe('pending_approval');

    const approversView = await approver.page.get(path);
    expect(approversView.body).toContain(`formaction="${path}/approve"`);
    const approved = await approver.page.post(`${path}/approve`, {
      comment: 'Fine',
      publish_now: 'true',
    });
    expect(approved.headers.location).toBe(`${path}?notice=published`);
    const published = await getConfiguration(t.db, a.tenant.id, id);
    expect([published.status, published.published]).toEqual(['approved', true]);

    const shown = await approver.page.get(`${path}?notice=published`);
    const escapedTag = publishedTag('https://consent.test', scope).replace(
      /[&<>"']/g,
      (char) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": '#39' }[char]};`,
    );
    expect(shown.body).toContain(
      `<textarea id="script-tag" class="mono" rows="6" readonly>${escapedTag}</textarea>`,
    );
    expect(shown.body).toContain('data-copy="script-tag"');
    const text = textOf(shown.body);
    expect(text).toContain(`Created by ${writer.email}`);
    expect(text).toContain(`Submitted for review by ${writer.email}`);
    expect(text).toContain('Ready');
    expect(text).toContain(`Review passed by ${reviewer.email}`);
    expect(text).toContain(`Approved by ${approver.email}`);
    expect(text).toContain(`Published by ${approver.email}`);
    const system = textOf((await writer.page.get(`/backoffice/cookies/systems/${scope}`)).body);
    expect(system).toContain('Published configuration Summer banner (version');
  });

  it('approved without publishing, it waits: whoever may edit publishes it, then unpublishes it', async () => {
    const id = await newDraft(writer.page, 'Autumn banner');
    const path = `/backoffice/cookies/configurations/${id}`;
    await step(writer.page, id, 'submit');
    await step(reviewer.page, id, 'pass');
    const approved = await step(approver.page, id, 'approve', {});
    expect(approved.headers.location).toBe(`${path}?notice=approved`);
    // The approver may not publish (cookies:edit): no button; the writer may.
    expect((await approver.page.get(path)).body).not.toContain(`formaction="${path}/publish"`);
    expect((await writer.page.get(path)).body).toContain(`formaction="${path}/publish"`);
    const published = await writer.page.post(`${path}/publish`, {});
    expect(published.headers.location).toBe(`${path}?notice=published`);
    expect((await getConfiguration(t.db, a.tenant.id, id)).published).toBe(true);
    const unpublished = await step(writer.page, id, 'unpublish');
    expect(unpublished.headers.location).toBe(`${path}?notice=unpublished`);
    expect((await getConfiguration(t.db, a.tenant.id, id)).published).toBe(false);
    const steps = (await audit('cookie_configuration.unpublished')).map((e) => e.target);
    expect(steps).toEqual([id]);
  });

  it('a sent-back draft is edited again; what left draft is not edited (409) but copied into a new draft', async () => {
    const id = await newDraft(writer.page, 'Winter banner');
    const path = `/backoffice/cookies/configurations/${id}`;
    await step(writer.page, id, 'submit');
    const sentBack = await step(reviewer.page, id, 'send-back', { comment: 'Say more' });
    expect(sentBack.headers.location).toBe(`${path}?notice=sent_back`);
    expect((await writer.page.get(`${path}/edit`)).statusCode).toBe(200);
    await step(writer.page, id, 'submit');
    const edit = await writer.page.get(`${path}/edit`);
    expect(edit.statusCode).toBe(409);
    expect(textOf(edit.body)).toContain(
      'Only a draft configuration can be changed: make a new configuration from this one instead.',
    );
    const source = await getConfiguration(t.db, a.tenant.id, id);
    const copied = await step(writer.page, id, 'copy');
    const copy = configurationOf(copied.headers.location);
    expect(copied.headers.location).toBe(
      `/backoffice/cookies/configurations/${copy}?notice=copied`,
    );
    const made = await getConfiguration(t.db, a.tenant.id, copy);
    expect([made.status, made.name, made.system]).toEqual(['draft', 'Winter banner', scope]);
    expect(made.version).toBe(source.version + 1);
    expect(made.content_sha256).toBe(source.content_sha256);
    expect((await audit('cookie_configuration.copied')).map((e) => e.target)).toEqual([copy]);
  });

  it('a draft is deleted after a tick, audited; one that left draft is not', async () => {
    const id = await newDraft(writer.page, 'Doomed banner');
    const path = `/backoffice/cookies/configurations/${id}`;
    // The writer (Editor) may not delete: no form, and the route refuses.
    expect((await writer.page.get(path)).body).not.toContain(`formaction="${path}/delete"`);
    expect((await writer.page.post(`${path}/delete`, { confirm: 'true' })).statusCode).toBe(403);
    const page = await admin.get(path);
    expect(page.body).toContain(`formaction="${path}/delete"`);
    const unticked = await admin.post(`${path}/delete`, {});
    expect(unticked.statusCode).toBe(400);
    expect(textOf(unticked.body)).toContain('Tick the box to confirm.');
    const deleted = await admin.post(`${path}/delete`, { confirm: 'true' });
    expect(deleted.headers.location).toBe('/backoffice/cookies?notice=deleted');
    expect((await admin.get(path)).statusCode).toBe(404);
    const entries = await audit('cookie_configuration.deleted');
    expect(entries.map((e) => [e.target, JSON.parse(e.details ?? '{}').name])).toEqual([
      [id, 'Doomed banner'],
    ]);
    const submitted = await newDraft(writer.page, 'Kept banner');
    await step(writer.page, submitted, 'submit');
    await admin.get(`/backoffice/cookies/configurations/${submitted}`);
    const kept = await admin.post(`/backoffice/cookies/configurations/${submitted}/delete`, {
      confirm: 'true',
    });
    expect(kept.statusCode).toBe(409);
    expect(textOf(kept.body)).toContain('Only a draft configuration can be deleted.');
  });

  it('the list shows the spec’s columns and finds configurations by name or by system', async () => {
    const list = await admin.get('/backoffice/cookies');
    expect(textOf(list.body)).toContain('Cookie Name System Status Publish Status Created At');
    const rows = (body: string) =>
      [...body.matchAll(/<tr>\n<td><a href="[^"]+">([^<]+)<\/a>/g)].map((m) => m[1]);
    expect(rows((await admin.get('/backoffice/cookies?q=SUMMER')).body)).toEqual(['Summer banner']);
    const bySystem = rows((await admin.get('/backoffice/cookies?q=bank%20web')).body);
    expect(bySystem).toContain('Summer banner');
    expect(bySystem).toContain('Autumn banner');
    expect(rows((await admin.get('/backoffice/cookies?q=nothing-like-it')).body)).toEqual([]);
    expect(textOf((await admin.get('/backoffice/cookies?q=SUMMER')).body)).toContain(
      'Summer banner (version',
    );
  });

  it.each([
    ['GET', '/backoffice/cookies/configurations/not-an-id', 404],
    ['GET', '/backoffice/cookies/configurations/0190e8a0-0000-7000-8000-000000000000', 404],
    ['GET', '/backoffice/cookies/configurations/0190e8a0-0000-7000-8000-000000000000/edit', 404],
    ['GET', '/backoffice/cookies/systems/cs_00000000000000000000', 404],
    [
      'POST',
      '/backoffice/cookies/configurations/0190e8a0-0000-7000-8000-000000000000/approve',
      404,
    ],
    ['POST', '/backoffice/cookies/configurations/not-an-id/locales', 404],
  ])('%s %s answers the HTML page %i, not a 500', async (method, url, status) => {
    await admin.get('/backoffice/cookies');
    const response = method === 'GET' ? await admin.get(url) : await admin.post(url, {});
    expect(response.statusCode).toBe(status);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.body).toContain('<nav aria-label="Main">');
  });

  it('a new configuration with a system that is none, a day that is none or a name too long shows the form again (400)', async () => {
    for (const [fields, message] of [
      [
        { system: 'cs_00000000000000000000', name: 'X', effective_date: '2026-07-01' },
        'Choose a system of the list.',
      ],
      [{ system: scope, name: 'X', effective_date: '2026-02-30' }, 'A day, such as 2026-07-01.'],
      [
        { system: scope, name: 'X'.repeat(201), effective_date: '2026-07-01' },
        'A name of 1 to 200 characters.',
      ],
      [
        { system: scope, name: 'X', effective_date: '2026-07-01', categories: 'ads' },
        'Tick the standard categories',
      ],
    ] as const) {
      const response = await admin.submit(
        '/backoffice/cookies/configurations/new',
        '/backoffice/cookies/configurations',
        fields,
      );
      expect(response.statusCode, message).toBe(400);
      expect(textOf(response.body)).toContain(message);
    }
  });

  it('a cookie form without its token is refused (403) and a visitor is sent to sign in; nothing changes', async () => {
    const systems = async () =>
      (
        await t.db
          .selectFrom('cookie_systems')
          .select('id')
          .where('tenant_id', '=', a.tenant.id)
          .execute()
      ).length;
    const before = await systems();
    await admin.get('/backoffice/cookies/systems/new');
    const tokenless = await admin.post('/backoffice/cookies/systems', {
      name: 'No token',
      origins: 'https://no-token.example',
      _csrf: '',
    });
    expect(tokenless.statusCode).toBe(403);
    expect(textOf(tokenless.body)).toContain('This form has expired');
    const visitor = new PageClient(t.app);
    const page = await visitor.get('/backoffice/cookies/decisions');
    expect(page.statusCode).toBe(303);
    expect(String(page.headers.location)).toMatch(/^\/backoffice\/sign-in\?next=/);
    expect(await systems()).toBe(before);
  });

  it('a comment too long is refused with the page again, the step not taken', async () => {
    const id = await newDraft(writer.page, 'Wordy banner');
    const response = await step(writer.page, id, 'submit', { comment: 'x'.repeat(2001) });
    expect(response.statusCode).toBe(400);
    expect(textOf(response.body)).toContain('The comment: At most 2,000 characters.');
    expect((await getConfiguration(t.db, a.tenant.id, id)).status).toBe('draft');
  });
});
