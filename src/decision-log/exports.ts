/**
 * A decision's receipt in two standard shapes: an ISO/IEC TS 27560 consent receipt in W3C DPV
 * JSON-LD, and a Kantara Consent Receipt v1.1. Pure mappings of what the service holds; where a
 * mandatory field has no source here (purpose category, jurisdiction, …) the value is
 * a fixed placeholder, listed in docs/proof.md ("Receipt exports").
 *
 * @module
 */
import { v5 as uuidV5 } from 'uuid';
import { contentFileUrl } from '../templates/index.js';
import type { Receipt } from './schemas.js';

/** Everything the exports say beyond the receipt itself. */
/** A receipt that still names its customer (not erased): what the exports are made from. */
export type OpenReceipt = Receipt & {
  decision: Receipt['decision'] & { customer_id: string };
  opening: NonNullable<Receipt['opening']>;
};

export interface ExportSource {
  receipt: OpenReceipt;
  /** The tenant: the controller the customer decided for. */
  controller: { id: string; alias: string };
  template: { name: string; description: string };
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
  publicBaseUrl: string;
  /** When the export is made (ISO 8601). */
  issuedAt: string;
}

/** Our namespace, for what neither DPV nor DCMI has a term for: the log proof, placeholders. */
const consentLogNamespace = 'urn:consent-service:consent-log#';
export const dpv27560 = 'https://w3id.org/dpv/schema/dpv-27560#';
const kantaraVersion = 'KI-CR-v1.1.0' as const;

/** What a Kantara field the service has no source for holds. */
export const unspecified = 'unspecified';

/**
 * The JSON-LD context: DPV's prefixes, and which properties take IRIs or dates, so that the
 * document reads like the DPV guide's examples and still means the same in RDF.
 */
const iso27560Context = {
  dpv: 'https://w3id.org/dpv#',
  'dpv-27560': dpv27560,
  dct: 'http://purl.org/dc/terms/',
  schema: 'https://schema.org/',
  xsd: 'http://www.w3.org/2001/XMLSchema#',
  clog: consentLogNamespace,
  'dct:conformsTo': { '@type': '@id' },
  'dct:publisher': { '@type': '@id' },
  'dct:created': { '@type': 'xsd:dateTime' },
  'dct:issued': { '@type': 'xsd:dateTime' },
  'schema:recipient': { '@type': '@id' },
  'dpv:hasJurisdiction': { '@type': '@id' },
  'dpv:hasPersonalData': { '@type': '@id' },
  'dpv:hasStorageCondition': { '@type': '@id' },
  'dpv:hasRecipient': { '@type': '@id' },
  'dpv:hasLegalBasis': { '@type': '@id' },
  'dpv:isIndicatedBy': { '@type': '@id' },
  'dpv:isExercisedAt': { '@type': '@id' },
  'dpv:isIndicatedAtTime': { '@type': 'xsd:dateTime' },
} as const;

const consentStatus = {
  given: 'dpv:ConsentGiven',
  reject: 'dpv:ConsentRefused',
  withdraw: 'dpv:ConsentWithdrawn',
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
  const receiptId = exportId(receipt, 'iso-27560');
  const controllerIri = `urn:uuid:${controller.id}`;
  return {
    '@context': iso27560Context,
    '@id': `urn:uuid:${receiptId}`,
    '@type': 'dpv:ConsentReceipt' as const,
    'dct:identifier': receiptId,
    'dpv:hasIdentifier': receiptId,
    'dct:conformsTo': `${dpv27560}receipt`,
    'dct:created': source.issuedAt,
    'dct:publisher': controllerIri,
    'schema:recipient': 'dpv:DataSubject',
    'dpv:hasRecordOfActivity': {
      '@id': `urn:uuid:${decision.decision_id}`,
      '@type': 'dpv:ConsentRecord' as const,
      'dct:identifier': decision.decision_id,
      'dct:conformsTo': `${dpv27560}record`,
      'dpv:hasDataSubject': { '@type': 'dpv:DataSubject', 'dct:identifier': decision.customer_id },
      'dpv:hasDataController': {
        '@id': controllerIri,
        '@type': 'dpv:DataController',
        'dct:identifier': controller.id,
        'schema:name': controller.alias,
      },
      'dpv:hasJurisdiction': 'clog:NotRecorded',
      'dpv:hasLegalBasis': 'dpv:ExpressedConsent',
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
        '@type': 'dpv:Process',
        'dpv:hasPurpose': purposeOf(template),
        'dpv:hasPersonalData': 'clog:NotRecorded',
        'dpv:hasStorageCondition': 'clog:NotRecorded',
        'dpv:hasRecipient': controllerIri,
      },
      'dpv:hasConsentControl': {
        '@type': 'dpv:WithdrawConsent',
        'dct:description':
          `Ask ${controller.alias} to record a "withdraw" decision on ` +
          `${decision.template_code}; it does so through the consent service API (isExercisedAt).`,
        'dpv:isExercisedAt': decisionsUrl(source),
      },
      'dpv:hasConsentStatus': {
        '@type': consentStatus[decision.decision],
        'dpv:isIndicatedAtTime': decision.decided_at,
        'dpv:isIndicatedBy': 'dpv:DataSubject',
        'dpv:hasIndicationMethod': `Decision "${decision.decision}" recorded through the API`,
        'dpv:hasDuration': {
          '@type': 'dpv:UntilEventDuration',
          'dct:description': "Until the customer's next decision on this template",
        },
      },
    },
    'clog:proof': isoProofOf(proofOf(receipt)),
  };
}

/** Kantara Consent Receipt v1.1, with the decision and the proof under `consentLog`. */
export function kantaraReceipt(source: ExportSource) {
  const { receipt, controller, template, version } = source;
  const { decision } = receipt;
  return {
    version: kantaraVersion,
    jurisdiction: unspecified,
    consentTimestamp: Math.floor(Date.parse(decision.decided_at) / 1000),
    collectionMethod: `${collectionMethod}: ${decisionWords[decision.decision]}`,
    consentReceiptID: exportId(receipt, 'kantara'),
    publicKey: receipt.verifier_key,
    // v1.1 asks for ISO 639-1: the tag's language alone.
    language: new Intl.Locale(version.locale).language,
    piiPrincipalId: decision.customer_id,
    piiControllers: [
      {
        piiController: controller.alias,
        onBehalf: false,
        contact: unspecified,
        address: {},
        email: unspecified,
        phone: unspecified,
      },
    ],
    policyUrl: noticeUrl(source),
    services: [
      {
        service: template.name,
        purposes: [
          {
            purpose: template.description || template.name,
            purposeCategory: [unspecified],
            consentType: 'EXPLICIT',
            piiCategory: [unspecified],
            primaryPurpose: true,
            termination:
              `A "withdraw" decision on ${decision.template_code}, ` +
              'recorded through the controller',
            thirdPartyDisclosure: false,
          },
        ],
      },
    ],
    sensitive: false,
    spiCat: [],
    consentLog: {
      decision: decision.decision,
      decisionId: decision.decision_id,
      decidedAt: decision.decided_at,
      templateCode: decision.template_code,
      consentVersionId: decision.consent_version_id,
      version: decision.version,
      tag: version.tag,
      contentSha256: version.content_sha256,
      proof: proofOf(receipt),
    },
  };
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

/**
 * The log proof, the same in both exports: enough to check, with the verifier key alone, that
 * the decision is in the log (`tlog_proof`), and with the subject salt, that the leaf commits to
 * this customer id.
 */
function proofOf(receipt: OpenReceipt) {
  return {
    leafFormat: 'consent-log/leaf/v1' as const,
    origin: receipt.checkpoint.slice(0, receipt.checkpoint.indexOf('\n')),
    leafIndex: receipt.leaf_index,
    treeSize: receipt.tree_size,
    leaf: receipt.leaf,
    checkpoint: receipt.checkpoint,
    tlogProof: receipt.tlog_proof,
    verifierKey: receipt.verifier_key,
    subjectSalt: receipt.opening.subject_salt,
  };
}

/** The same proof in JSON-LD: every key a term of our namespace. */
function isoProofOf(proof: ReturnType<typeof proofOf>) {
  return {
    '@type': 'clog:InclusionProof' as const,
    'clog:leafFormat': proof.leafFormat,
    'clog:origin': proof.origin,
    'clog:leafIndex': proof.leafIndex,
    'clog:treeSize': proof.treeSize,
    'clog:leaf': proof.leaf,
    'clog:checkpoint': proof.checkpoint,
    'clog:tlogProof': proof.tlogProof,
    'clog:verifierKey': proof.verifierKey,
    'clog:subjectSalt': proof.subjectSalt,
  };
}

/**
 * A receipt id that is the same for the same decision, format and checkpoint (a name-based
 * UUID), so exporting twice gives one receipt, and a later checkpoint another.
 */
function exportId(receipt: Receipt, format: 'iso-27560' | 'kantara'): string {
  return uuidV5(`${format}\n${receipt.checkpoint}`, receipt.decision.decision_id.toLowerCase());
}
