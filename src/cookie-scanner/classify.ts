/**
 * Which category each thing a scan found belongs to, and whose it is. A cookie, in order: the
 * tenant's own override; the banner's own two cookies (necessary); the cookies the system's
 * published configuration names under a category (the owner's word); the Open Cookie Database;
 * for a cookie of a third-party domain, that domain's host below; else `unclassified`. A host: the
 * tenant's override; the service's own (the banner, necessary); then `third-party-web` (MIT, the
 * entity list Lighthouse uses: who owns a domain and what it is for), its categories read as the
 * banner's.
 */
import tpw from 'third-party-web/httparchive-nostats-subset.js';
import type { CookieDatabase } from '../cookie-database/index.js';

/** A banner category, a tenant's own category key, or `unclassified` when nothing knows it. */
export type Category = string;

export interface Classification {
  category: Category;
  /** Who the data goes to (`Google`); null when unknown. */
  provider: string | null;
  /** The product that sets it (`Google Analytics`), when known. */
  platform: string | null;
  purpose: string | null;
  retention: string | null;
  /** What said so: `override`, `banner`, `declared`, `open-cookie-database`, `host`, or null. */
  source: string | null;
}

/** A tenant's own word on a cookie name (a `*` at the end: a prefix) or a host (and its subdomains). */
export interface Override {
  kind: 'cookie' | 'host';
  pattern: string;
  category: Category;
  provider: string | null;
  purpose: string | null;
  retention: string | null;
}

/** A category of the published configuration and the cookies it says its trackers set. */
export interface DeclaredCategory {
  key: string;
  required: boolean;
  cookies: { name: string }[];
}

/** The banner's own cookies (docs/cookies.md, "The cookies"). */
const bannerCookies = new Set(['consentrix_consent', 'consentrix_categories']);

/** third-party-web's categories as the banner's: what the tracker does with a visit. */
const entityCategories: Readonly<Record<string, Category>> = {
  analytics: 'analytics',
  ad: 'marketing',
  marketing: 'marketing',
  social: 'marketing',
  video: 'marketing',
  'customer-success': 'functional',
  content: 'functional',
  other: 'functional',
  // What serves a page or holds consent: a tag manager loaded before a choice is how Google's
  // Consent Mode works; the trackers it loads are checked by their own hosts.
  'tag-manager': 'necessary',
  'consent-provider': 'necessary',
  cdn: 'necessary',
  hosting: 'necessary',
  utility: 'necessary',
};

const unknown: Classification = {
  category: 'unclassified',
  provider: null,
  platform: null,
  purpose: null,
  retention: null,
  source: null,
};

function namesMatch(pattern: string, name: string): boolean {
  return pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : pattern === name;
}

function hostMatches(pattern: string, host: string): boolean {
  const bare = pattern.replace(/^\*?\./, '').toLowerCase();
  return host === bare || host.endsWith(`.${bare}`);
}

function fromOverride(o: Override): Classification {
  return {
    category: o.category,
    provider: o.provider,
    platform: null,
    purpose: o.purpose,
    retention: o.retention,
    source: 'override',
  };
}

export interface Classifier {
  cookie(name: string, domain: string): Classification;
  host(host: string): Classification;
}

export function classifier(input: {
  database: CookieDatabase;
  declared: DeclaredCategory[];
  overrides: Override[];
  /** The service's own host (where the banner comes from). */
  serviceHost: string;
}): Classifier {
  const { database, declared, overrides, serviceHost } = input;
  const host = (name: string): Classification => {
    const bare = name.replace(/:\d+$/, '').toLowerCase();
    const override = overrides.find((o) => o.kind === 'host' && hostMatches(o.pattern, bare));
    if (override) return fromOverride(override);
    if (name === serviceHost || bare === serviceHost) {
      return { ...unknown, category: 'necessary', purpose: 'The consent banner', source: 'banner' };
    }
    const entity = tpw.getEntity(`https://${bare}/`);
    if (!entity) return unknown;
    return {
      category: entityCategories[entity.category] ?? 'functional',
      provider: entity.company,
      platform: entity.name,
      purpose: null,
      retention: null,
      source: 'host',
    };
  };
  return {
    host,
    cookie(name, domain) {
      const override = overrides.find((o) => o.kind === 'cookie' && namesMatch(o.pattern, name));
      if (override) return fromOverride(override);
      if (bannerCookies.has(name)) {
        return {
          ...unknown,
          category: 'necessary',
          purpose: 'Holds the visitor’s consent choice',
          source: 'banner',
        };
      }
      const owner = declared.find((c) => c.cookies.some((k) => namesMatch(k.name, name)));
      if (owner) return { ...unknown, category: owner.key, source: 'declared' };
      const known = database.classify(name);
      if (known) {
        return {
          category: known.category,
          provider: known.controller || known.platform || null,
          platform: known.platform || null,
          purpose: known.description || null,
          retention: known.retention || null,
          source: 'open-cookie-database',
        };
      }
      const third = host(domain.replace(/^\./, ''));
      return third.source === 'host' ? third : unknown;
    },
  };
}
