/**
 * A/B tests of a banner in the back-office (docs/cookies.md, "A/B tests"): a configuration whose
 * variant makes rejecting harder or less prominent goes no further than draft, and the page of
 * one being tested shows each variant's opt-in rates with their 95% confidence intervals
 * (reference values computed apart with Python's `math`, Wilson's formula).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConfiguration, defaultContent, getConfiguration } from '../../src/cookies/index.js';
import type { TestApp } from '../helpers/app.js';
import { cliEditor, postChoice, seedPublishedSystem } from '../helpers/cookies.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { storeAgnostic } from '../helpers/stores.js';
import { type PageClient, signedIn, startBackofficeApp, textOf } from './support.js';

const origin = 'https://www.bank.example';
const request = { origin, userAgent: 'Browser/1.0' };
/** A visitor id whose first 8 hex digits, modulo 100, are `bucket`. */
const visitor = (bucket: number, n: number) =>
  `${bucket.toString(16).padStart(8, '0')}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

describe.each(storeAgnostic)('A/B tests of a banner on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let admin: PageClient;

  beforeAll(async () => {
    t = await startBackofficeApp(store);
    a = await seedTenant(t.db);
    admin = await signedIn(t.app, a.tenant.email);
  });
  afterAll(() => t?.close());

  it('refuses to submit a configuration whose variant shows Reject all as a link, saying why; it stays a draft', async () => {
    const site = await seedPublishedSystem(t.db, a.tenant.id, { categories: ['analytics'] });
    const draft = await t.db.transaction().execute((trx) =>
      createConfiguration(
        trx,
        a.tenant.id,
        {
          system: site.scope,
          name: 'Link test',
          content: {
            ...defaultContent(['analytics']),
            variants: [{ key: 'quiet', weight: 50, layout: { reject_style: 'link' } }],
          },
        },
        cliEditor(a.tenant.id),
      ),
    );
    const path = `/backoffice/cookies/configurations/${draft.id}`;
    await admin.get(path);
    const refused = await admin.post(`${path}/submit`, {});
    expect(refused.statusCode).toBe(400);
    expect(textOf(refused.body)).toContain(
      'A variant makes rejecting harder or less prominent than accepting. (variant quiet) Reject all is a link where Accept all is a filled button: it must be the same kind of control, of the same size and colours.',
    );
    expect((await getConfiguration(t.db, a.tenant.id, draft.id)).status).toBe('draft');
  });

  it('shows each variant’s opt-in rates per category with their 95% intervals', async () => {
    const site = await seedPublishedSystem(t.db, a.tenant.id, {
      content: {
        ...defaultContent(['analytics', 'marketing']),
        variants: [{ key: 'thanks', weight: 50, texts: { en: { reject_all: 'No thanks' } } }],
      },
    });
    const all = { necessary: true, analytics: true, marketing: true };
    const none = { necessary: true, analytics: false, marketing: false };
    // Buckets 50 to 99 see the base, 0 to 49 the variant.
    const choices = [
      { bucket: 60, method: 'accept-all', categories: all, variant: 'base' },
      { bucket: 75, method: 'accept-all', categories: all, variant: 'base' },
      { bucket: 99, method: 'reject-all', categories: none, variant: 'base' },
      { bucket: 0, method: 'accept-all', categories: all, variant: 'thanks' },
      {
        bucket: 49,
        method: 'custom',
        categories: { ...none, analytics: true },
        variant: 'thanks',
      },
    ] as const;
    for (const [n, c] of choices.entries()) {
      await postChoice(
        t.app,
        site,
        {
          visitorId: visitor(c.bucket, n),
          method: c.method,
          categories: c.categories,
          locale: 'en',
          variant: c.variant,
        },
        request,
      );
    }
    const page = textOf(
      (await admin.get(`/backoffice/cookies/configurations/${site.configurationId}`)).body,
    ).replace(/\s+/g, ' ');
    expect(page).toContain('A/B test: opt-in rates');
    expect(page).toContain('base 50% 3 66.7% (20.8% to 93.9%) 66.7% (20.8% to 93.9%)');
    expect(page).toContain('thanks 50% 2 100.0% (34.2% to 100.0%) 50.0% (9.5% to 90.5%)');
  });

  it('refuses a choice whose variant is not the one drawn for its visitor, or one on a configuration without variants', async () => {
    const tested = await seedPublishedSystem(t.db, a.tenant.id, {
      content: { ...defaultContent(['analytics']), variants: [{ key: 'b', weight: 50 }] },
    });
    const plain = await seedPublishedSystem(t.db, a.tenant.id, { categories: ['analytics'] });
    const categories = { necessary: true, analytics: true };
    await expect(
      postChoice(
        t.app,
        tested,
        {
          visitorId: visitor(10, 1),
          method: 'accept-all',
          categories,
          locale: 'en',
          variant: 'base',
        },
        request,
      ),
    ).rejects.toThrow('must be b, the variant of this visitor');
    await expect(
      postChoice(
        t.app,
        tested,
        { visitorId: visitor(10, 2), method: 'accept-all', categories, locale: 'en' },
        request,
      ),
    ).rejects.toThrow('must be b, the variant of this visitor');
    await expect(
      postChoice(
        t.app,
        plain,
        { visitorId: visitor(10, 3), method: 'accept-all', categories, locale: 'en', variant: 'b' },
        request,
      ),
    ).rejects.toThrow('is for a configuration with A/B variants');
  });
});
