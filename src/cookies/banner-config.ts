/**
 * What the service writes into the banner script it serves (`GET /cookies/v1/{scope}/banner.js`)
 * and the banner reads: the published configuration of one system, for every locale it has, and
 * where to record a choice. The script carries it, so a first view costs one request. Types only:
 * the banner (`src/cookies/banner/`, built for browsers) imports them too.
 */

/**
 * The four standard categories of the cookie and `dataLayer` contract, in the order of the
 * `dataLayer` event's keys (the `consentrix_categories` cookie orders them analytics,
 * functional, marketing, personalization, as the contract's example does).
 */
export const standardCategories = [
  'analytics',
  'marketing',
  'functional',
  'personalization',
] as const;
export type StandardCategory = (typeof standardCategories)[number];

/** How a visitor's choice was made. */
export type ChoiceMethod = 'accept-all' | 'reject-all' | 'custom' | 'gpc';

export interface CategoryTexts {
  name: string;
  description: string;
}

export interface BannerCategory {
  /** `necessary`, a standard category, or the tenant's own key (`[a-z][a-z0-9_]{0,39}`). */
  key: string;
  /** Always granted, shown locked on (`necessary` always is). */
  required: boolean;
  /** By locale (lower-case BCP 47: `en`, `th`, `pt-br`). */
  texts: Record<string, CategoryTexts>;
  /**
   * A tenant's own category: the standard one whose Consent Mode types, cookie boolean and
   * `dataLayer` key it feeds. A standard type is granted only when every category feeding it is.
   */
  maps_to?: StandardCategory;
  /** Cookies the banner removes when the category is refused or withdrawn. */
  cookies?: CookieName[];
}

/** A cookie by name, or by prefix (`_ga_*`), with the domain and path it was set with. */
export interface CookieName {
  name: string;
  domain?: string;
  path?: string;
}

export interface BannerTexts {
  title: string;
  body: string;
  accept_all: string;
  reject_all: string;
  preferences: string;
  save: string;
  /** The preferences panel's heading. */
  preferences_title: string;
  /** Shown when the browser sends Global Privacy Control. */
  gpc_note: string;
  policy_label: string;
  /** Absolute http(s) URL of the site's cookie policy; empty for none. */
  policy_url: string;
  /** The label of the button that closes the preferences panel without saving. */
  close: string;
  /** The settings button's label (`layout.settings_button`); without it, `preferences`. */
  settings?: string;
  /** The label of each category's list of cookies in the preferences; without it, no list. */
  declaration?: string;
  /**
   * What a held embed's placeholder says, `{category}` standing for the category's name; without
   * it, the category's description.
   */
  held_content?: string;
  /**
   * The placeholder's button, which allows the category (`{category}` as above); without it, a
   * `preferences` button that opens the preferences panel.
   */
  allow_category?: string;
}

export interface BannerLayout {
  kind: 'bar' | 'box';
  position: 'bottom' | 'top' | 'bottom-left' | 'bottom-right' | 'center';
  /**
   * A small button kept in this corner of every page once the visitor has chosen, that opens the
   * preferences again; none when absent.
   */
  settings_button?: 'bottom-left' | 'bottom-right';
  /** CSS hex colours (`#rrggbb`). */
  colors: { background: string; text: string; accent: string };
  /** *Reject all* as a filled button (absent), an outlined one, or a link. */
  reject_style?: 'filled' | 'outlined' | 'link';
  /** *Reject all* on the first layer (absent), or only in the preferences (their Save). */
  reject_layer?: 'first' | 'preferences';
}

/** An A/B variant: its share of visitors, and what it changes of the texts and layout. */
export interface BannerVariant {
  key: string;
  /** Per cent of visitors, drawn from the visitor id (banner/variant.ts). */
  weight: number;
  texts?: Record<string, Partial<BannerTexts>>;
  layout?: Partial<Omit<BannerLayout, 'colors'>> & { colors?: Partial<BannerLayout['colors']> };
}

export interface BannerConfig {
  /** The system's public scope id (`data-scope`). */
  scope: string;
  /** Absolute URL the banner POSTs a choice to; empty in a preview, which posts nothing. */
  decisions_url: string;
  /**
   * The cookie declaration (`declaration.json`), fetched when the preferences open; absent when
   * the configuration lists no cookie.
   */
  declaration_url?: string;
  configuration: {
    id: string;
    /** Counts the configuration's publications: a new publish is a new version. */
    version: number;
    /**
     * Changes only when the choice a visitor made no longer fits: a category added or removed,
     * a required flag changed. A stored choice with another fingerprint is asked again.
     */
    fingerprint: string;
  };
  /** Days a choice is kept before the visitor is asked again. */
  lifetime_days: number;
  /** The request for the script carried `Sec-GPC: 1`. */
  gpc: boolean;
  /**
   * The visitor's region's rule is opt-out: until they choose, every category runs but those
   * Global Privacy Control refuses, and a browser sending it is recorded as a `gpc` choice at
   * once. Absent: opt-in, nothing optional before a choice.
   */
  mode?: 'opt-out';
  /** The locale used when neither the page's nor the browser's languages have texts. */
  default_locale: string;
  /** `necessary` first, then the standard ones, then the tenant's own. */
  categories: BannerCategory[];
  /** By locale; every locale of `categories[].texts` has an entry here. */
  texts: Record<string, BannerTexts>;
  layout: BannerLayout;
  /** A/B variants; the visitors drawn into none see the configuration itself (`base`). */
  variants?: BannerVariant[];
  /**
   * The back-office's preview of a configuration, never a site's script: the banner reads and
   * writes no cookie, records no choice, and takes the focus only when clicked, so that a page
   * of previews keeps its own. Absent on the public script.
   */
  preview?: boolean;
}

/** The body the banner POSTs to `decisions_url` (as `text/plain` JSON, so no preflight). */
export interface ChoiceBody {
  /** A random UUID per choice: a retry of the same choice is recorded once. */
  event_id: string;
  /** A random UUID kept in the first-party cookie `consentrix_consent`. */
  visitor_id: string;
  configuration_id: string;
  configuration_version: number;
  method: ChoiceMethod;
  /** Every category of the configuration, required ones `true`. */
  categories: Record<string, boolean>;
  locale: string;
  /** The A/B variant the visitor saw (`base` for none), when the configuration has variants. */
  variant?: string;
  /** The signed-in customer's token, when the page gave the banner one. */
  customer_token?: string;
}

/** The answer to a recorded choice: `201` (or `200` for a retry already recorded). */
export interface ChoiceAnswer {
  data: {
    /** The cookie decision's id: its receipt is `GET /api/v1/cookie-decisions/{decision_id}/receipt`. */
    decision_id: string;
    decided_at: string;
    /** Only for a choice sent with a customer token: whether the choice is the customer's. */
    customer_linked?: boolean;
  };
}
