/**
 * A decision's receipt in two standard shapes: an ISO/IEC TS 27560 consent receipt in W3C DPV
 * JSON-LD, and a Kantara Consent Receipt v1.1. Pure mappings of what the service holds; where a
 * mandatory field has no source here (purpose category, jurisdiction, …) the value is
 * a fixed placeholder, listed in docs/proof.md ("Receipt exports").
 *
 * @module
 */

import type { Receipt } from '../decisions/index.js';
import { contentFileUrl } from '../templates/index.js';
import {
  type ExportContext,
  iso27560Document,
  isoConsentStatus,
  isoProcess,
  kantaraDocument,
  type Opened,
  recordFacts,
} from './export-parts.js';

/** A receipt that still names its customer. */
export type OpenReceipt = Opened<Receipt, 'decision', 'customer_id'>;

/** Everything the exports say beyond the receipt itself. */
export interface ExportSource extends ExportContext {
  receipt: OpenReceipt;
  /** `data_categories`: the sensitive data the template covers now (PDPA section 26). */
  template: { name: string; description: string; data_categories: readonly string[] };
  version: {
    tag: string;
    published_at: string;
    /** Hex SHA-256 of the text shown. */
    content_sha256: string;
    /** The operator's own URL for the text, if any. */
    file_url: string | null;
    /** The locale of the text shown (BCP 47). */
    locale: string;
  };
}

const consentStatus = {
  given: 'dpv:ConsentGiven',
  reject: 'dpv:ConsentRefused',
  withdraw: 'dpv:ConsentWithdrawn',
} as const;

/** Who indicated the consent, in DPV's terms; the act itself is under `clog:actedBy`. */
const indicatedBy = {
  subject: 'dpv:DataSubject',
  parent: 'dpv:ParentOfDataSubject',
  guardian: 'dpv:GuardianOfDataSubject',
  curator: 'dpv:GuardianOfDataSubject',
  authorised: 'dpv:Representative',
} as const;

const collectionMethod = "Consent service API, on the controller's request";
const decisionWords = {
  given: 'consent given',
  reject: 'consent refused',
  withdraw: 'consent withdrawn',
} as const;

/** ISO/IEC TS 27560 consent receipt (DPV profile `dpv-27560:receipt`) wrapping the record. */
export function iso27560Receipt(source: ExportSource) {
  const { receipt, controller, template, version } = source;
  const { decision } = receipt;
  const { explicit, acted_by: acted } = receipt.opening;
  return iso27560Document(factsOf(source), {
    'dpv:hasNotice': {
      '@id': noticeUrl(source),
      '@type': 'dpv:ConsentNotice',
      'dct:identifier': decision.consent_version_id,
      'dct:isVersionOf': {
        'dct:identifier': decision.template_code,
        'dct:title': template.name,
      },
      'schema:version': version.tag,
      'clog:versionNumber': decision.version,
      'clog:contentSha256': version.content_sha256,
      'dct:issued': version.published_at,
      'dct:language': version.locale,
    },
    'dpv:hasProcess': {
      ...isoProcess(controller, purposeOf(template)),
      // Only for a template covering sensitive data: every other export is as before.
      ...(template.data_categories.length > 0
        ? {
            'dpv:hasPersonalData': template.data_categories.map((category) => ({
              '@type': 'dpv:SensitivePersonalData' as const,
              'dct:identifier': category,
            })),
          }
        : {}),
    },
    'dpv:hasConsentControl': {
      '@type': 'dpv:WithdrawConsent',
      'dct:description':
        `Ask ${controller.alias} to record a "withdraw" decision on ` +
        `${decision.template_code}; it does so through the consent service API (isExercisedAt).`,
      'dpv:isExercisedAt': decisionsUrl(source),
    },
    'dpv:hasConsentStatus': {
      ...isoConsentStatus({
        type: consentStatus[decision.decision],
        time: decision.decided_at,
        method: `Decision "${decision.decision}" recorded through the API`,
        until: "Until the customer's next decision on this template",
      }),
      ...(acted ? { 'dpv:isIndicatedBy': indicatedBy[acted.role] } : {}),
    },
    ...(explicit
      ? { 'dpv:hasConsentType': 'dpv:ExplicitlyExpressedConsent', 'clog:explicitAct': explicit }
      : {}),
    ...(acted ? { 'clog:actedBy': acted } : {}),
  });
}

/** Kantara Consent Receipt v1.1, with the decision and the proof under `consentLog`. */
export function kantaraReceipt(source: ExportSource) {
  const { receipt, template, version } = source;
  const { decision } = receipt;
  const { explicit, acted_by: acted } = receipt.opening;
  return kantaraDocument(factsOf(source), {
    collectionMethod: `${collectionMethod}: ${decisionWords[decision.decision]}`,
    policyUrl: noticeUrl(source),
    service: template.name,
    purposes: [
      {
        purpose: template.description || template.name,
        primaryPurpose: true,
        termination: `A "withdraw" decision on ${decision.template_code}, recorded through the controller`,
      },
    ],
    consentLog: {
      decision: decision.decision,
      decisionId: decision.decision_id,
      decidedAt: decision.decided_at,
      templateCode: decision.template_code,
      consentVersionId: decision.consent_version_id,
      version: decision.version,
      tag: version.tag,
      contentSha256: version.content_sha256,
      ...(explicit ? { explicit } : {}),
      ...(acted ? { actedBy: acted } : {}),
    },
    sensitive: template.data_categories,
  });
}

/** The notice's URL: the operator's own, or the public content file. */
function noticeUrl(source: ExportSource): string {
  return (
    source.version.file_url ??
    contentFileUrl(source.publicBaseUrl, source.receipt.decision.consent_version_id)
  );
}

function decisionsUrl(source: ExportSource): string {
  const customer = encodeURIComponent(source.receipt.decision.customer_id);
  return `${source.publicBaseUrl}/api/v1/customers/${customer}/consents/decisions`;
}

function purposeOf(template: ExportSource['template']) {
  return {
    '@type': 'dpv:Purpose',
    'dct:title': template.name,
    ...(template.description ? { 'dct:description': template.description } : {}),
  };
}

function factsOf(source: ExportSource) {
  const { decision } = source.receipt;
  return recordFacts(source, source.receipt, 'consent-log/leaf/v1', {
    recordId: decision.decision_id,
    subjectId: decision.customer_id,
    decidedAt: decision.decided_at,
    locale: source.version.locale,
  });
}
