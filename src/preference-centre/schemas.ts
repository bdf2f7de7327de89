import { type Static, Type } from 'typebox';

/** `#rrggbb`: the service also checks that white text on it is readable (WCAG AA, 4.5:1). */
const colour = Type.Union([Type.String({ pattern: '^#[0-9a-fA-F]{6}$' }), Type.Null()]);

/** A tenant's preference centre as it is set (the back-office's form, read as JSON). */
export const PreferenceCentreInput = Type.Object(
  {
    display_name: Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()]),
    logo_url: Type.Union([Type.String({ minLength: 1, maxLength: 2000 }), Type.Null()]),
    accent_colour: colour,
    header_colour: colour,
    allowed_origins: Type.Array(Type.String({ minLength: 1, maxLength: 300 }), { maxItems: 20 }),
    /** The API key that e-mail sign-ins act under; null or absent: e-mail sign-in is off. */
    email_key_id: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()]),
    ),
  },
  { additionalProperties: false },
);
export type PreferenceCentreInput = Static<typeof PreferenceCentreInput>;

/** One origin a preference link may return to, and that may frame the page. */
const AllowedOrigin = Type.String({
  minLength: 1,
  maxLength: 300,
  description: '`https://host[:port]` (`http://` only for `localhost`), without a path',
  examples: ['https://shop.example'],
});

/** `PUT /api/v1/preference-centre/allowed-origins`: the whole list, replacing the one kept. */
export const AllowedOriginsRequest = Type.Object(
  {
    allowed_origins: Type.Array(AllowedOrigin, {
      // The back-office's form takes as many (PreferenceCentreInput).
      maxItems: 20,
      description:
        'Every origin allowed, at most 20; an empty list clears them. Each is kept once, in ' +
        'its canonical form (`https://Shop.example/` is `https://shop.example`).',
    }),
  },
  { additionalProperties: false },
);
export type AllowedOriginsRequest = Static<typeof AllowedOriginsRequest>;

export const AllowedOriginsSchema = Type.Object(
  {
    allowed_origins: Type.Array(Type.String(), {
      description:
        "Where a preference link's `return_url` may lead, and which sites may frame the page.",
    }),
  },
  { additionalProperties: false },
);
export type AllowedOrigins = Static<typeof AllowedOriginsSchema>;

/** The locales the page itself speaks; a customer's other locales are shown in English. */
export const pageLocales = ['en', 'th'] as const;
export type PageLocale = (typeof pageLocales)[number];

/** The longest a link may live, and how long it lives when the backend names no time. */
export const maxLinkSeconds = 24 * 60 * 60;
export const defaultLinkSeconds = 15 * 60;

/** `POST /api/v1/customers/{customer_id}/preference-links`: everything optional. */
export const PreferenceLinkRequest = Type.Object(
  {
    return_url: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 2000,
        description:
          'Where the page\'s "Back" link leads: an http(s) URL on one of the origins the tenant ' +
          'allows in its preference centre settings.',
      }),
    ),
    locale: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$',
        maxLength: 35,
        description:
          "The customer's language as a BCP 47 tag (`th`, `en-GB`): the page's own words and " +
          'each text in the closest locale it has. Absent: from the browser.',
      }),
    ),
    ttl_seconds: Type.Optional(
      Type.Integer({
        minimum: 60,
        maximum: maxLinkSeconds,
        description: `How long the link may be opened, in seconds: ${defaultLinkSeconds} when absent.`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type PreferenceLinkRequest = Static<typeof PreferenceLinkRequest>;

export const PreferenceLinkSchema = Type.Object(
  {
    url: Type.String({
      description:
        'The link to send the customer to. It opens once, and shows nothing once it has expired.',
    }),
    expires_at: Type.String({ description: 'When the link can no longer be opened (ISO 8601).' }),
  },
  { additionalProperties: false },
);
export type PreferenceLink = Static<typeof PreferenceLinkSchema>;
