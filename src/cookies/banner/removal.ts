/**
 * Removing a refused category's cookies: the configuration lists, per category, the cookies its
 * trackers set (`_ga`, `_ga_*`, `_hjSessionUser_*`); when the visitor refuses or withdraws the
 * category they are removed, on the choice and on each later page view, so a withdrawal leaves no
 * tracker's identifier behind. Only what scripts can see: an `HttpOnly` cookie is the server's to
 * remove.
 */
import type { CookieName } from '../banner-config.js';
import { config } from './config.js';
import { cookieJar } from './cookies.js';

function matches(wanted: string, name: string): boolean {
  return wanted.endsWith('*') ? name.startsWith(wanted.slice(0, -1)) : name === wanted;
}

/**
 * Where a cookie may have been set when the configuration does not say: the page's host (no
 * domain) and each parent domain (`.shop.example.co.th`, `.example.co.th`, …), since trackers set
 * theirs on the site's registrable domain. A browser ignores the removal on a public suffix.
 */
function domainsOf(hostname: string): string[] {
  if (/^[\d.]+$/.test(hostname) || hostname.includes(':')) return [''];
  const labels = hostname.split('.');
  return ['', ...labels.slice(0, -1).map((_, at) => `.${labels.slice(at).join('.')}`)];
}

function expire(name: string, spec: CookieName): void {
  const domains = spec.domain ? [spec.domain] : domainsOf(location.hostname);
  for (const domain of domains) {
    // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is missing from Firefox and older Safari
    document.cookie = `${name}=;max-age=0;path=${spec.path ?? '/'}${domain ? `;domain=${domain}` : ''}`;
  }
}

/** Removes the listed cookies of every category `categories` does not grant. */
export function removeRefused(categories: Record<string, boolean>): void {
  const names = [...cookieJar().keys()];
  for (const category of config.categories) {
    if (category.required || categories[category.key] === true) continue;
    for (const spec of category.cookies ?? []) {
      for (const name of names) if (matches(spec.name, name)) expire(name, spec);
    }
  }
}
