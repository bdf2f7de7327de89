/**
 * The cookie banner, as a site runs it: early in its <head>, after the published tag's inline
 * defaults, served by the service with the system's configuration written in
 * (`../banner-script.ts`). Before anything else it sets Consent Mode's defaults (unless the page
 * already did) and starts holding back the site's marked tags; then it applies a valid stored
 * choice (no banner, no request) or asks. `window.Consentrix` lets the site reopen the
 * preferences and follow the choice.
 */
import type { ChoiceMethod } from '../banner-config.js';
import { scan, startBlocking } from './blocking.js';
import { config } from './config.js';
import { consentDefault, consentUpdate } from './consent-mode.js';
import {
  type Choice,
  forgetCategories,
  isValid,
  standard,
  storedChoice,
  writeChoice,
} from './cookies.js';
import {
  closeDialog,
  type DialogContext,
  gpcOff,
  openDialog,
  setUpDialog,
  showSettings,
  switches,
} from './dialog.js';
import { setUpEmbeds } from './embeds.js';
import { pickLocale } from './locale.js';
import { record } from './record.js';
import { removeRefused } from './removal.js';
import { customerChoice } from './signed-in.js';
import { uuid } from './uuid.js';
import { applyVariant } from './variant.js';

/** What `Consentrix.consent()` answers and `onChange` listeners get. */
interface Consent {
  categories: Record<string, boolean>;
  method: ChoiceMethod;
  decided_at: string;
  decision_id: string | null;
  visitor_id: string;
}

interface ConsentrixApi {
  open(): void;
  consent(): Consent | null;
  onChange(listener: (consent: Consent) => void): () => void;
}

declare global {
  interface Window {
    Consentrix?: ConsentrixApi;
  }
  interface Navigator {
    globalPrivacyControl?: boolean;
  }
}

/** Runs `then` once <body> exists; holding back tags and Consent Mode never wait for it. */
function whenReady(then: () => void): void {
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', then);
  else then();
}

function start(): void {
  // Only while this script first runs does the page say which script it is.
  const tag = document.currentScript as HTMLScriptElement | null;
  const nonce = tag?.nonce ?? '';
  consentDefault(!tag || tag.async || tag.defer || document.readyState !== 'loading');
  const gpc = navigator.globalPrivacyControl === true || config.gpc;
  // Under an opt-out rule, what holds until the visitor chooses: every category but those
  // Global Privacy Control refuses.
  const optOut = config.mode === 'opt-out';
  const presumed = (key: string) => optOut && (!gpc || !gpcOff(key));
  const presumedCategories = () =>
    Object.fromEntries(config.categories.map((c) => [c.key, c.required || presumed(c.key)]));
  const locale = pickLocale(config.texts, config.default_locale, tag?.dataset.locale);
  const listeners: ((consent: Consent) => void)[] = [];
  // A preview is shown to the back-office's users, not a site's visitors: it keeps nothing.
  const preview = config.preview === true;
  // The stored choice's visitor id is kept even when the choice itself is asked again.
  const stored = preview ? null : storedChoice();
  let choice = stored && isValid(stored) ? stored : null;
  if (stored && !choice) forgetCategories();
  // The visitor's id from the first view on: it draws their A/B variant, kept on every page.
  const visitorId = stored?.visitor_id ?? uuid();
  // A visitor the site signed in: their customer's newest choice, from any device.
  const token = preview ? undefined : tag?.dataset.customerToken || undefined;
  const theirs = token === undefined ? undefined : customerChoice(token, visitorId);
  const variant = preview ? 'base' : applyVariant(visitorId);

  const required = (key: string) => config.categories.some((c) => c.key === key && c.required);
  const view = (c: Choice): Consent => ({
    categories: { ...c.categories },
    method: c.method,
    decided_at: c.decided_at,
    decision_id: c.decision_id,
    visitor_id: c.visitor_id,
  });
  const notify = (c: Choice) => {
    for (const listener of listeners.slice()) {
      try {
        listener(view(c));
      } catch (error) {
        // One site's listener failing stops neither the others nor the banner; the console
        // still reports it.
        setTimeout(() => {
          throw error;
        });
      }
    }
  };
  const apply = (c: Choice) => {
    scan();
    consentUpdate(standard(c.categories));
    // A preview's frame has no cookies of its own to clean (its sandbox refuses them).
    if (!preview) removeRefused(c.categories);
  };

  const decide = (method: ChoiceMethod, pick: (key: string) => boolean) => {
    const categories: Record<string, boolean> = {};
    for (const { key } of config.categories) categories[key] = required(key) || pick(key);
    const made: Choice = {
      visitor_id: visitorId,
      configuration_id: config.configuration.id,
      fingerprint: config.configuration.fingerprint,
      decided_at: new Date().toISOString(),
      method,
      decision_id: null,
      categories,
    };
    choice = made;
    if (!preview) writeChoice(made);
    closeDialog();
    apply(made);
    notify(made);
    // A preview shows what a choice does on the page; nobody made it, so nothing proves it.
    if (preview) return;
    const { id, version } = config.configuration;
    const body = {
      event_id: uuid(),
      visitor_id: made.visitor_id,
      configuration_id: id,
      configuration_version: version,
      method,
      categories,
      // The language the visitor read it in: the one picked, or the one they switched to.
      locale: dialogContext.locale,
      ...(config.variants ? { variant } : {}),
      ...(token === undefined ? {} : { customer_token: token }),
    };
    record(body, ({ decision_id }) => {
      made.decision_id = decision_id;
      // A later choice has taken its place: this one's id no longer describes the cookie.
      if (choice !== made) return;
      writeChoice(made);
      notify(made);
    });
  };

  const dialogContext: DialogContext = {
    locale,
    gpc,
    nonce,
    current: () => choice?.categories ?? (optOut ? presumedCategories() : undefined),
    act(action) {
      if (action === 'accept-all') {
        // Under GPC, "all" stops short of what the signal refuses: selling and profiling.
        decide(gpc ? 'gpc' : 'accept-all', (key) => !gpc || !gpcOff(key));
      } else if (action === 'reject-all') decide('reject-all', () => false);
      else if (action === 'save') {
        const on = switches();
        decide('custom', (key) => on[key] === true);
      } else if (action === 'open') openDialog(true);
      else if (action === 'close') {
        if (choice) closeDialog();
        else openDialog(false);
      }
    },
  };
  setUpDialog(dialogContext);

  setUpEmbeds({
    locale,
    nonce,
    allow: (category) =>
      decide('custom', (key) => key === category || choice?.categories[key] === true),
    openPreferences: () => openDialog(true),
  });
  // Unknown categories are never granted; required ones are, from the start.
  startBlocking((category) =>
    config.categories.some(
      (c) =>
        c.key === category &&
        (c.required || (choice ? choice.categories[category] === true : presumed(category))),
    ),
  );
  // The customer's choice from another device, newer than this one's: it becomes this one's,
  // with its own decision id (nothing new is recorded: it is the same choice).
  const adopt = (c: Choice) => {
    choice = c;
    writeChoice(c);
    closeDialog();
    apply(c);
    notify(c);
  };
  const newer = (c: Choice | null): c is Choice =>
    c !== null && (!choice || Date.parse(c.decided_at) > Date.parse(choice.decided_at));
  if (choice) {
    apply(choice);
    whenReady(showSettings);
    theirs?.then((c) => {
      if (newer(c)) adopt(c);
    });
  } else if (optOut && gpc && !preview) {
    // The browser has said no to selling and sharing: that is the visitor's choice, recorded
    // as theirs with nothing asked.
    whenReady(() => {
      decide('gpc', presumed);
      showSettings();
    });
  } else {
    if (optOut) {
      scan();
      consentUpdate(standard(presumedCategories()));
    }
    const ask = () => whenReady(() => openDialog(false, false));
    // A signed-in visitor is asked only when their customer has no choice to bring here.
    if (theirs) {
      theirs.then((c) => {
        if (newer(c)) {
          whenReady(() => {
            adopt(c);
            showSettings();
          });
        } else if (!choice) ask();
      });
    } else ask();
  }

  window.Consentrix = {
    // A preview's page opens the panel itself: that is no visitor asking for the focus.
    open: () => whenReady(() => openDialog(true, !preview)),
    consent: () => (choice ? view(choice) : null),
    onChange(listener) {
      listeners.push(listener);
      return () => {
        const at = listeners.indexOf(listener);
        if (at >= 0) listeners.splice(at, 1);
      };
    },
  };
}

// A second copy of the tag must not set Consent Mode back to denied after a choice.
if (!window.Consentrix) start();
