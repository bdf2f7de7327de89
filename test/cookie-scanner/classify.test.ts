/**
 * How a scan classifies what it found, and which findings are violations, checked against fixed
 * vectors: the Open Cookie Database's own entries (the pinned copy), `third-party-web`'s owners of
 * the trackers' hosts, and the rules of docs/cookie-scans.md. A crawl's sightings are written
 * here by hand; the crawl itself runs in Chromium in test/e2e/cookie-scan.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { pinnedCookieDatabase } from '../../src/cookie-database/index.js';
import { classifier, type Override } from '../../src/cookie-scanner/classify.js';
import type { Crawl, SeenCookie, SeenRequest } from '../../src/cookie-scanner/crawl.js';
import { changesSince, findingsOf } from '../../src/cookie-scanner/findings.js';

const site = 'https://www.shop.example/';

function classify(overrides: Override[] = []) {
  return classifier({
    database: pinnedCookieDatabase(),
    declared: [
      { key: 'necessary', required: true, cookies: [] },
      { key: 'analytics', required: false, cookies: [] },
      { key: 'loyalty', required: false, cookies: [{ name: 'shop_points_*' }, { name: '_ga' }] },
    ],
    overrides,
    serviceHost: 'consent.shop.example',
  });
}

describe('classification', () => {
  it.each([
    // name, category, provider, platform, source: the database's rows for these names
    ['_gid', 'analytics', 'Google', 'Google Analytics', 'open-cookie-database'],
    ['_ga_ABC123', 'analytics', 'Google', 'Google Analytics', 'open-cookie-database'],
    ['_fbp', 'marketing', 'Facebook', 'Facebook', 'open-cookie-database'],
    ['_hjSessionUser_3412345', 'functional', 'Hotjar', 'Hotjar', 'open-cookie-database'],
    ['consentrix_consent', 'necessary', null, null, 'banner'],
    ['consentrix_categories', 'necessary', null, null, 'banner'],
    // The published configuration's word wins over the database's.
    ['_ga', 'loyalty', null, null, 'declared'],
    ['shop_points_total', 'loyalty', null, null, 'declared'],
    ['site_lang', 'unclassified', null, null, null],
  ])('the cookie %s: %s, from %s', (name, category, provider, platform, source) => {
    expect(classify().cookie(name, 'www.shop.example')).toMatchObject({
      category,
      provider,
      platform,
      source,
    });
  });

  it('a tenant’s override wins over everything, a `*` making it a prefix', () => {
    const mine: Override[] = [
      {
        kind: 'cookie',
        pattern: '_g*',
        category: 'necessary',
        provider: 'Us',
        purpose: 'Load balancing',
        retention: '1 day',
      },
      {
        kind: 'host',
        pattern: 'google-analytics.com',
        category: 'functional',
        provider: 'Us',
        purpose: null,
        retention: null,
      },
    ];
    expect(classify(mine).cookie('_gid', '.shop.example')).toMatchObject({
      category: 'necessary',
      provider: 'Us',
      purpose: 'Load balancing',
      source: 'override',
    });
    expect(classify(mine).cookie('consentrix_consent', '.shop.example').source).toBe('banner');
    expect(classify(mine).host('region1.google-analytics.com')).toMatchObject({
      category: 'functional',
      source: 'override',
    });
  });

  it.each([
    ['www.google-analytics.com', 'analytics', 'Google', 'Google Analytics'],
    ['region1.google-analytics.com', 'analytics', 'Google', 'Google Analytics'],
    ['connect.facebook.net', 'marketing', 'Facebook', 'Facebook'],
    ['static.hotjar.com', 'analytics', 'Hotjar', 'Hotjar'],
    ['www.youtube.com', 'marketing', 'YouTube', 'YouTube'],
    // A tag manager loaded before a choice is how Consent Mode works.
    ['www.googletagmanager.com', 'necessary', 'Google', 'Google Tag Manager'],
    ['cdn.jsdelivr.net', 'necessary', 'JSDelivr CDN', 'JSDelivr CDN'],
  ])('the host %s: %s, of %s', (host, category, provider, platform) => {
    expect(classify().host(host)).toMatchObject({ category, provider, platform, source: 'host' });
  });

  it('the service’s own host is the banner’s (necessary); a host nobody lists is unclassified', () => {
    expect(classify().host('consent.shop.example')).toMatchObject({
      category: 'necessary',
      source: 'banner',
    });
    expect(classify().host('tracker.nobody-lists-this.example')).toMatchObject({
      category: 'unclassified',
      source: null,
    });
  });

  it('a cookie the database does not know, set on a tracker’s domain, is the tracker’s', () => {
    expect(classify().cookie('NID_fixture', '.doubleclick.net')).toMatchObject({
      category: 'marketing',
      source: 'host',
    });
  });
});

function cookie(name: string, phase: SeenCookie['phase'], domain = 'www.shop.example'): SeenCookie {
  return {
    name,
    domain,
    path: '/',
    expires: -1,
    httpOnly: false,
    secure: true,
    sameSite: 'Lax',
    page: site,
    phase,
    cause: `${site}tag.js`,
  };
}

function request(host: string, phase: SeenRequest['phase']): SeenRequest {
  return { host, url: `https://${host}/x`, page: site, phase, cause: site };
}

function crawl(cookies: SeenCookie[], requests: SeenRequest[]): Crawl {
  return {
    pages: [site],
    reports: [],
    cookies,
    requests,
    storage: [],
    choices: { 'accept-all': true, 'reject-all': true },
    truncated: false,
  };
}

describe('violations', () => {
  const required = new Set(['necessary']);

  it('a non-necessary cookie before a choice or after Reject all; never after Accept all', () => {
    const found = findingsOf(
      crawl(
        [
          cookie('_gid', 'before-choice'),
          cookie('_gid', 'reject-all'),
          cookie('_gid', 'accept-all'),
        ],
        [],
      ),
      classify(),
      required,
    );
    expect(found.violations).toEqual([
      {
        kind: 'cookie',
        name: '_gid',
        domain: 'www.shop.example',
        page: site,
        phase: 'before-choice',
        category: 'analytics',
        cause: `${site}tag.js`,
      },
      {
        kind: 'cookie',
        name: '_gid',
        domain: 'www.shop.example',
        page: site,
        phase: 'reject-all',
        category: 'analytics',
        cause: `${site}tag.js`,
      },
    ]);
  });

  it('no violation for necessary, unclassified, or required categories', () => {
    const found = findingsOf(
      crawl(
        [
          cookie('consentrix_consent', 'before-choice'),
          cookie('site_lang', 'before-choice'),
          cookie('shop_points_total', 'before-choice'),
        ],
        [],
      ),
      classify(),
      new Set(['necessary', 'loyalty']),
    );
    expect(found.violations).toEqual([]);
    expect(found.cookies.map((c) => c.category)).toEqual(['necessary', 'unclassified', 'loyalty']);
  });

  it('a tracker’s host before a choice; not a tag manager, a CDN, the site itself or a functional host', () => {
    const found = findingsOf(
      crawl(
        [],
        [
          request('www.google-analytics.com', 'before-choice'),
          request('www.googletagmanager.com', 'before-choice'),
          request('cdn.jsdelivr.net', 'before-choice'),
          request('img.shop.example', 'before-choice'),
          request('www.facebook.com', 'accept-all'),
        ],
      ),
      classify(),
      required,
    );
    expect(found.violations).toEqual([
      {
        kind: 'request',
        host: 'www.google-analytics.com',
        page: site,
        phase: 'before-choice',
        category: 'analytics',
        cause: site,
      },
    ]);
    // The site's own hosts are no third party: not listed at all.
    expect(found.requests.map((r) => r.host)).not.toContain('img.shop.example');
  });

  it('what changed since the scan before: cookies by name and domain, hosts; nothing is new on a first scan', () => {
    const then = findingsOf(
      crawl([cookie('_gid', 'accept-all')], [request('www.google-analytics.com', 'accept-all')]),
      classify(),
      required,
    );
    const now = findingsOf(
      crawl(
        [cookie('_gid', 'accept-all'), cookie('_fbp', 'accept-all')],
        [request('connect.facebook.net', 'accept-all')],
      ),
      classify(),
      required,
    );
    expect(changesSince(now, undefined)).toEqual({
      since: null,
      new_cookies: [],
      gone_cookies: [],
      new_hosts: [],
      gone_hosts: [],
    });
    expect(changesSince(now, { id: 'scan-1', findings: then })).toEqual({
      since: 'scan-1',
      new_cookies: [{ name: '_fbp', domain: 'www.shop.example' }],
      gone_cookies: [],
      new_hosts: ['connect.facebook.net'],
      gone_hosts: ['www.google-analytics.com'],
    });
  });
});
