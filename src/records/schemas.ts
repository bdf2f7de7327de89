import { type Static, Type } from 'typebox';
import { ActedBy, DecisionValue, lapseFields } from '../decisions/index.js';
import { dateTimePattern, integerQuery } from '../platform/http-schemas.js';

export const defaultPageSize = 100;
const maxPageSize = 500;

/**
 * A request that names a locale (this, or `Accept-Language`) gets the locale of the text behind
 * each decision; one that names none gets the answer as it was before locales.
 */
const localeOptIn = Type.Optional(
  Type.String({
    description:
      'A BCP 47 tag: with it (or with `Accept-Language`) each decision also gives `locale`, the ' +
      'locale of the text the customer was shown.',
    examples: ['th'],
  }),
);

/** The locale of the text a decision was made on; only to a request that named a locale. */
const decisionLocale = Type.Optional(
  Type.String({ description: 'The locale of the text shown (BCP 47), when a locale was asked.' }),
);

/** Query of the customer's consents: page size and the cursor of the previous page. */
export const HistoryQuery = Type.Object(
  {
    limit: Type.Optional(
      integerQuery({
        pattern: '^(?:[1-9][0-9]?|[1-4][0-9]{2}|500)$',
        minimum: 1,
        maximum: maxPageSize,
        description: `Decisions per page, 1 to ${maxPageSize} (default ${defaultPageSize}).`,
        examples: ['100'],
      }),
    ),
    cursor: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9_-]{1,200}$',
        description: "Opaque: the previous page's `next_cursor`.",
      }),
    ),
    locale: localeOptIn,
    include: Type.Optional(
      Type.Literal('controls', {
        description:
          "`controls`: the answer also gives `controls`, the customer's channel changes and " +
          'partner blocks, newest first.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type HistoryQuery = Static<typeof HistoryQuery>;

export const AsOfQuery = Type.Object(
  {
    at: Type.String({
      // The pattern fixes the shape; the format rejects impossible dates (February 30).
      format: 'date-time',
      pattern: dateTimePattern,
      description: 'The moment to look at: ISO 8601 date-time with a time zone.',
      examples: ['2026-11-20T22:51:59.308Z'],
    }),
    locale: localeOptIn,
  },
  { additionalProperties: false },
);
export type AsOfQuery = Static<typeof AsOfQuery>;

const VersionId = Type.String({ format: 'uuid' });
const Version = Type.Integer({ minimum: 1 });
const DateTime = Type.String({ format: 'date-time' });
const ContentSha256 = Type.String({
  pattern: '^[0-9a-f]{64}$',
  description: 'Hex SHA-256 of the content_html the customer was shown.',
});

/** Who acted on a decision, only when it said (PDPA section 20; docs/pdpa.md). */
function actedByField() {
  return Type.Optional(
    Type.Object(ActedBy.properties, {
      description:
        'Only for a decision that said who acted: the subject or a representative, and the basis stated.',
    }),
  );
}

/** A published version, as far as a customer's record needs it. */
export const VersionSummary = Type.Object({
  consent_version_id: VersionId,
  version: Version,
  tag: Type.String(),
});
export type VersionSummary = Static<typeof VersionSummary>;

export const TemplateConsent = Type.Object({
  template_code: Type.String(),
  latest_version: VersionSummary,
  accepted: Type.Boolean({
    description:
      'True when the customer has decided on the latest version (as `pending`): false when ' +
      'that decision is a `given` that has lapsed under the validity period.',
  }),
  last_decision: Type.Object({
    decision_id: Type.String({ format: 'uuid' }),
    decision: DecisionValue,
    consent_version_id: VersionId,
    version: Version,
    tag: Type.String(),
    decided_at: DateTime,
    locale: decisionLocale,
  }),
  // Of the decision on the latest version, as `pending` says them.
  ...lapseFields(),
});
export type TemplateConsent = Static<typeof TemplateConsent>;

export const HistoryEntry = Type.Object({
  decision_id: Type.String({ format: 'uuid' }),
  template_code: Type.String(),
  consent_version_id: VersionId,
  version: Version,
  tag: Type.String(),
  decision: DecisionValue,
  decided_at: DateTime,
  content_sha256: ContentSha256,
  locale: decisionLocale,
  acted_by: actedByField(),
});
export type HistoryEntry = Static<typeof HistoryEntry>;

/** How many of a customer's control changes the history gives, the newest. */
export const maxControls = 1000;

const changeFields = {
  change_id: Type.String({
    format: 'uuid',
    description:
      'Its receipt: `GET /api/v1/channel-changes/{id}/receipt` or `…/partner-block-changes/{id}/receipt`',
  }),
  changed_at: DateTime,
  blocked: Type.Boolean(),
};

/** A change of a control after a decision: a channel's, or a partner's on a decision. */
export const ControlEntry = Type.Union([
  Type.Object({
    type: Type.Literal('channel_change'),
    ...changeFields,
    product_code: Type.String(),
    channel: Type.String(),
  }),
  Type.Object({
    type: Type.Literal('partner_block'),
    ...changeFields,
    decision_id: Type.String({ format: 'uuid' }),
    partner_code: Type.String(),
  }),
]);

export const CustomerConsents = Type.Object({
  customer_id: Type.String(),
  templates: Type.Array(TemplateConsent, {
    description: 'Each template the customer decided on, by code.',
  }),
  history: Type.Array(HistoryEntry, {
    description: 'Decisions on every template, newest first: one page of them.',
  }),
  next_cursor: Type.Union([Type.String(), Type.Null()], {
    description: 'The `cursor` of the next page; null on the last page.',
  }),
  controls: Type.Optional(
    Type.Array(ControlEntry, {
      description: `Only with \`include=controls\`: the customer's channel changes and partner blocks, newest first (the ${maxControls} newest).`,
    }),
  ),
});
export type CustomerConsents = Static<typeof CustomerConsents>;

export const ConsentAsOf = Type.Object({
  customer_id: Type.String(),
  template_code: Type.String(),
  at: Type.String({ format: 'date-time', description: 'The moment asked for, in UTC.' }),
  decision: Type.Union(
    [
      Type.Object({
        decision_id: Type.String({ format: 'uuid' }),
        decision: DecisionValue,
        decided_at: DateTime,
        consent_version_id: VersionId,
        version: Version,
        tag: Type.String(),
        content_sha256: ContentSha256,
        locale: decisionLocale,
        acted_by: actedByField(),
      }),
      Type.Null(),
    ],
    { description: 'The most recent decision made at or before `at`, on any version.' },
  ),
  latest_version: Type.Union(
    [
      Type.Object({
        consent_version_id: VersionId,
        version: Version,
        tag: Type.String(),
        published_at: DateTime,
      }),
      Type.Null(),
    ],
    { description: 'The latest version published at or before `at`; null before the first.' },
  ),
  accepted: Type.Boolean({
    description:
      'True when the customer had decided on `latest_version` at or before `at`, and that ' +
      'decision had not lapsed by `at` under the validity period then in force.',
  }),
  // Of the most recent decision on `latest_version` by `at`, as `pending` would have said them.
  ...lapseFields(),
  blocked_partners: Type.Optional(
    Type.Array(Type.String(), {
      description:
        "The partners blocked on `decision` at `at`, by code; only when the decision's version " +
        'lists partners (docs/partners.md, "Partner blocks").',
    }),
  ),
});
export type ConsentAsOf = Static<typeof ConsentAsOf>;
