/**
 * Google Consent Mode v2 and the `dataLayer` event of the integration contract: what the GTM
 * template and gtag.js read.
 */
import type { StandardCategory } from '../banner-config.js';

declare global {
  interface Window {
    dataLayer?: unknown[];
    gtag?: (...args: unknown[]) => void;
  }
}

/** The four standard categories, granted or not. */
export type Standard = Record<StandardCategory, boolean>;

/** The page's `dataLayer`, made when the page has none yet (the banner runs first). */
function dataLayer(): unknown[] {
  window.dataLayer = window.dataLayer || [];
  return window.dataLayer;
}

/**
 * The page's `gtag` when it has one (it may wrap or forward), else Google's own snippet: gtag.js
 * reads `arguments` objects from the `dataLayer`, not arrays, so that is what is pushed.
 */
function gtag(...args: unknown[]): void {
  if (typeof window.gtag === 'function') window.gtag(...args);
  // biome-ignore lint/complexity/noArguments: gtag.js tells its commands apart from events by the Arguments type
  else dataLayer().push(arguments);
}

const state = (on: boolean) => (on ? 'granted' : 'denied');

/** The contract's mapping of the four categories onto Consent Mode's storage types. */
function storage(s: Standard) {
  return {
    ad_storage: state(s.marketing),
    ad_user_data: state(s.marketing),
    ad_personalization: state(s.marketing),
    analytics_storage: state(s.analytics),
    functionality_storage: state(s.functional),
    personalization_storage: state(s.personalization),
    security_storage: 'granted',
  };
}

/** A consent default already in the `dataLayer`: the published tag's inline one, or the site's. */
function defaultSet(): boolean {
  return dataLayer().some((entry) => {
    const command = entry as ArrayLike<unknown> | null;
    return typeof command === 'object' && command?.[0] === 'consent' && command[1] === 'default';
  });
}

/**
 * Everything denied but security, before any tag can run; `wait_for_update` gives a stored
 * choice or the visitor's first one half a second to arrive before Google's tags fire denied.
 * Not again when the page set a default before the banner ran (the published tag does, inline).
 * A banner that runs `late` (`async`, `defer`, or added after the page was parsed) with no
 * default before it came after tags that had none: the console says so.
 */
export function consentDefault(late: boolean): void {
  if (defaultSet()) return;
  if (late) {
    console.warn(
      'Consentrix: banner.js ran async or deferred with no consent default before it, so tags ' +
        'that ran first had none. Paste the published tag, which sets the defaults inline.',
    );
  }
  gtag('consent', 'default', {
    ...storage({ analytics: false, marketing: false, functional: false, personalization: false }),
    wait_for_update: 500,
  });
}

/** After a choice, and on each page view that has a valid stored one. */
export function consentUpdate(s: Standard): void {
  gtag('consent', 'update', storage(s));
  dataLayer().push({
    event: 'consentrix_consent_update',
    consentrix_analytics: s.analytics,
    consentrix_marketing: s.marketing,
    consentrix_functional: s.functional,
    consentrix_personalization: s.personalization,
  });
}
