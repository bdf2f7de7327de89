/**
 * The two first-party cookies the banner keeps: `consentrix_categories`, the contract's four
 * booleans that the GTM template reads, and `consentrix_consent`, the whole choice that tells a
 * later page view whether to ask again.
 */
import type { ChoiceMethod } from '../banner-config.js';
import { config } from './config.js';
import type { Standard } from './consent-mode.js';

/** A choice as `consentrix_consent` holds it (its keys in this order). */
export interface Choice {
  visitor_id: string;
  configuration_id: string;
  fingerprint: string;
  decided_at: string;
  method: ChoiceMethod;
  /** `null` until the service has answered the choice's POST. */
  decision_id: string | null;
  /** Every category of the configuration, the tenant's own included. */
  categories: Record<string, boolean>;
}

const day = 864e5;

/** The page's cookies that scripts can see, by name (a name given twice: its first value). */
export function cookieJar(): Map<string, string> {
  const jar = new Map<string, string>();
  for (const pair of document.cookie.split('; ')) {
    const at = pair.indexOf('=');
    const name = at < 0 ? pair : pair.slice(0, at);
    if (name !== '' && !jar.has(name)) jar.set(name, at < 0 ? '' : pair.slice(at + 1));
  }
  return jar;
}

function read(name: string): string | undefined {
  return cookieJar().get(name);
}

/**
 * The stored choice, valid or not (its visitor id outlives a re-prompt); `null` for none or for
 * a cookie that is not one of ours.
 */
export function storedChoice(): Choice | null {
  try {
    const choice = JSON.parse(decodeURIComponent(read('consentrix_consent') ?? '')) as Choice;
    return typeof choice.visitor_id === 'string' && choice.categories instanceof Object
      ? choice
      : null;
  } catch {
    return null;
  }
}

/** Made for this configuration's categories, and not older than the lifetime. */
export function isValid(choice: Choice): boolean {
  return (
    choice.fingerprint === config.configuration.fingerprint &&
    Date.parse(choice.decided_at) + config.lifetime_days * day > Date.now()
  );
}

/** The four in the order of the contract's cookie example. */
const cookieOrder = ['analytics', 'functional', 'marketing', 'personalization'] as const;

/**
 * The contract's four booleans, in the cookie's order. Each is fed by the standard category of
 * its name and by the tenant's own categories that map onto it (`maps_to`), and is on only when
 * there is one and every one is granted: one refused category never lets another's trackers run.
 */
export function standard(categories: Record<string, boolean>): Standard {
  const four = {} as Standard;
  for (const key of cookieOrder) {
    const feeding = config.categories.filter((c) => c.key === key || c.maps_to === key);
    four[key] = feeding.length > 0 && feeding.every((c) => categories[c.key] === true);
  }
  return four;
}

/** Writes both cookies, to expire together with the choice (`lifetime_days` after it). */
export function writeChoice(choice: Choice): void {
  const left = Date.parse(choice.decided_at) + config.lifetime_days * day - Date.now();
  const attributes = `;path=/;max-age=${Math.round(left / 1000)};SameSite=Lax${
    location.protocol === 'https:' ? ';Secure' : ''
  }`;
  const cookie = (name: string, value: unknown) => {
    // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is missing from Firefox and older Safari
    document.cookie = `${name}=${encodeURIComponent(JSON.stringify(value))}${attributes}`;
  };
  cookie('consentrix_categories', standard(choice.categories));
  cookie('consentrix_consent', choice);
}

/**
 * While the visitor is asked again, nothing on the page may still say granted: a GTM template
 * that restores consent from `consentrix_categories` would grant what is being asked about. The
 * cookie goes; `consentrix_consent` stays for its visitor id, and is never read as a grant once
 * it no longer fits (`isValid`).
 */
export function forgetCategories(): void {
  // biome-ignore lint/suspicious/noDocumentCookie: as in writeChoice
  document.cookie = 'consentrix_categories=;path=/;max-age=0';
}
