/**
 * A website visitor's cookie decision's receipt in the two standard shapes a decision's has
 * (exports.ts): the visitor is the data subject, the banner configuration they were shown is
 * the notice, and each of its categories is a purpose, granted or refused. Pure mappings; the
 * table of docs/proof.md ("Exports of a cookie decision") says each field.
 *
 * @module
 */
import type { ChoiceMethod, ConfigurationContent, CookieReceipt } from '../cookies/index.js';
import {
  type ExportContext,
  iso27560Document,
  isoProcess,
  kantaraDocument,
  type Opened,
  recordFacts,
} from './export-parts.js';

/** How the choice was made, in words, after its method. */
const methodWords: Record<ChoiceMethod, string> = {
  'accept-all': 'Accept all',
  'reject-all': 'Reject all',
  custom: 'categories saved one by one from the preferences',
  gpc: 'Accept all under Global Privacy Control',
};

/** A cookie receipt that still names its visitor. */
export type OpenCookieReceipt = Opened<CookieReceipt, 'cookie_decision', 'visitor_id'>;

/** Everything the exports say beyond the cookie receipt itself. */
export interface CookieExportSource extends ExportContext {
  receipt: OpenCookieReceipt;
  /** The website the banner is on. */
  system: { scope: string; name: string };
  /** The configuration the visitor was shown (the receipt's `configuration_id`). */
  configuration: { published_at: string; content: ConfigurationContent };
}

/** ISO/IEC TS 27560 consent receipt: one process per category, each with its own status. */
export function cookieIso27560Receipt(source: CookieExportSource) {
  const { receipt, controller, system, configuration } = source;
  const choice = receipt.cookie_decision;
  const policy = policyUrlOf(source);
  const method = `Choice "${choice.method}" on the cookie banner: ${methodWords[choice.method]}`;
  return iso27560Document(factsOf(source), {
    'dpv:hasNotice': {
      '@id': `urn:uuid:${choice.configuration_id}`,
      '@type': 'dpv:ConsentNotice',
      'dct:identifier': choice.configuration_id,
      'dct:isVersionOf': { 'dct:identifier': system.scope, 'dct:title': system.name },
      'clog:versionNumber': choice.configuration_version,
      'clog:contentSha256': choice.content_sha256,
      'dct:issued': configuration.published_at,
      'dct:language': receipt.opening.locale,
      ...(policy ? { 'dct:references': { '@id': policy } } : {}),
    },
    // A banner asks once and is answered category by category: one process per category, each
    // with its own status (DPV gives `hasConsentStatus` no domain), all indicated by one act.
    'dpv:hasProcess': purposesOf(source).map((purpose) =>
      isoProcess(
        controller,
        {
          '@type': 'dpv:Purpose',
          'dct:identifier': purpose.key,
          'dct:title': purpose.name,
          ...(purpose.description ? { 'dct:description': purpose.description } : {}),
        },
        {
          type: purpose.granted ? ('dpv:ConsentGiven' as const) : ('dpv:ConsentRefused' as const),
          time: choice.decided_at,
          method,
          until:
            `Until the visitor's next choice on ${system.name}, or ` +
            `${configuration.content.lifetime_days} days, when the banner asks again`,
        },
      ),
    ),
    'dpv:hasConsentControl': {
      '@type': 'dpv:WithdrawConsent',
      'dct:description':
        `Make a new choice on the cookie banner of ${system.name} (its cookie settings); ` +
        'the banner records it through the consent service (isExercisedAt).',
      'dpv:isExercisedAt': `${source.publicBaseUrl}/cookies/v1/${system.scope}/decisions`,
    },
  });
}

/** Kantara Consent Receipt v1.1: one purpose per category, the choice and proof in `consentLog`. */
export function cookieKantaraReceipt(source: CookieExportSource) {
  const { receipt, system, configuration } = source;
  const choice = receipt.cookie_decision;
  const purposes = purposesOf(source);
  const keys = (granted: boolean) =>
    purposes
      .filter((purpose) => purpose.granted === granted)
      .map((purpose) => purpose.key)
      .join(', ') || 'none';
  return kantaraDocument(factsOf(source), {
    // v1.1 knows only consent given: what was refused is said here and in consentLog.
    collectionMethod:
      `Cookie banner of ${system.name}, "${choice.method}" (${methodWords[choice.method]}): ` +
      `granted ${keys(true)}; refused ${keys(false)}`,
    policyUrl: policyUrlOf(source),
    service: system.name,
    purposes: purposes.map((purpose) => ({
      purpose: purpose.description ? `${purpose.name}: ${purpose.description}` : purpose.name,
      purposeCategory: [purpose.key],
      primaryPurpose: purpose.key === 'necessary',
      termination:
        `A new choice on the cookie banner of ${system.name}, or ` +
        `${configuration.content.lifetime_days} days after this one`,
    })),
    consentLog: {
      method: choice.method,
      categories: choice.categories,
      decisionId: choice.decision_id,
      decidedAt: choice.decided_at,
      scope: system.scope,
      configurationId: choice.configuration_id,
      version: choice.configuration_version,
      contentSha256: choice.content_sha256,
      locale: receipt.opening.locale,
    },
  });
}

/**
 * The configuration's categories in its order, named as the visitor read them (the locale of
 * the choice), each granted or refused as the leaf says.
 */
function purposesOf(source: CookieExportSource) {
  const { content } = source.configuration;
  const { locale } = source.receipt.opening;
  const choice = source.receipt.cookie_decision;
  return content.categories.map((category) => {
    const granted = choice.categories[category.key];
    // A choice names every category of its configuration (the choice's check); one without is
    // a store that no longer matches its log, which the audit names.
    if (granted === undefined) {
      throw new Error(`Cookie decision ${choice.decision_id} has no ${category.key} category`);
    }
    const texts = category.texts[locale] ?? category.texts[content.default_locale];
    return {
      key: category.key,
      name: texts?.name ?? category.key,
      description: texts?.description ?? '',
      granted,
    };
  });
}

/** The cookie policy the banner linked to in the visitor's locale; empty when it had none. */
function policyUrlOf(source: CookieExportSource): string {
  const { texts } = source.configuration.content;
  return texts[source.receipt.opening.locale]?.policy_url ?? '';
}

function factsOf(source: CookieExportSource) {
  const { cookie_decision: choice, opening } = source.receipt;
  return recordFacts(source, source.receipt, 'consent-log/cookie/v1', {
    recordId: choice.decision_id,
    subjectId: choice.visitor_id,
    decidedAt: choice.decided_at,
    locale: opening.locale,
  });
}
