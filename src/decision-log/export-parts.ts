/**
 * What the ISO/IEC TS 27560 and Kantara exports of every kind of record share (a decision's in
 * exports.ts, a cookie decision's in cookie-exports.ts): the JSON-LD context, the receipt and
 * record around each kind's own fields, the controller, the log proof and the receipt id.
 */
import { v5 as uuidV5 } from 'uuid';
import type { LogProof } from '../record-kinds/index.js';

/** Our namespace, for what neither DPV nor DCMI has a term for: the log proof, placeholders. */
const consentLogNamespace = 'urn:consent-service:consent-log#';
const dpv27560 = 'https://w3id.org/dpv/schema/dpv-27560#';
const kantaraVersion = 'KI-CR-v1.1.0' as const;

/** What a Kantara field the service has no source for holds. */
const unspecified = 'unspecified';

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

/** The tenant: the controller the customer or visitor decided for. */
export interface Controller {
  id: string;
  alias: string;
}

/**
 * A receipt whose subject was not erased: its opening is there, and its record (`Key`) names them in
 * `subject`. What the exports are made from.
 */
export type Opened<
  R extends { opening: unknown },
  Key extends keyof R,
  Subject extends string,
> = R & { [K in Key]: R[K] & { [S in Subject]: string } } & {
  opening: NonNullable<R['opening']>;
};

/** What every export says beyond its record: for whom, where the service is, and when. */
export interface ExportContext {
  /** The tenant: the controller the customer or visitor decided for. */
  controller: Controller;
  publicBaseUrl: string;
  /** When the export is made (ISO 8601). */
  issuedAt: string;
}

/** What both formats say of a record, whatever its kind. */
interface RecordFacts<F extends string> {
  /** The record's id: the namespace of its receipt ids. */
  recordId: string;
  /** Whose decision it is: the customer id, or the visitor id. */
  subjectId: string;
  decidedAt: string;
  /** The locale of what the subject was shown (BCP 47). */
  locale: string;
  controller: Controller;
  proof: ExportProof<F>;
  issuedAt: string;
}

/** A record's facts: its own, the context's, and the proof of its receipt in `leafFormat`. */
export function recordFacts<F extends string>(
  context: ExportContext,
  receipt: LogProof & { opening: { subject_salt: string } },
  leafFormat: F,
  record: Pick<RecordFacts<F>, 'recordId' | 'subjectId' | 'decidedAt' | 'locale'>,
): RecordFacts<F> {
  return {
    ...record,
    controller: context.controller,
    proof: proofOf(receipt, receipt.opening.subject_salt, leafFormat),
    issuedAt: context.issuedAt,
  };
}

/**
 * The log proof, the same in both exports: enough to check, with the verifier key alone, that
 * the record is in the log (`tlog_proof`), and with the subject salt, that the leaf commits to
 * the subject id the document names.
 */
function proofOf<F extends string>(receipt: LogProof, subjectSalt: string, leafFormat: F) {
  return {
    leafFormat,
    origin: receipt.checkpoint.slice(0, receipt.checkpoint.indexOf('\n')),
    leafIndex: receipt.leaf_index,
    treeSize: receipt.tree_size,
    leaf: receipt.leaf,
    checkpoint: receipt.checkpoint,
    tlogProof: receipt.tlog_proof,
    verifierKey: receipt.verifier_key,
    subjectSalt,
  };
}
type ExportProof<F extends string> = ReturnType<typeof proofOf<F>>;

/** The controller as an IRI: the publisher of the receipt and the recipient of the data. */
export const controllerIri = (controller: Controller): string => `urn:uuid:${controller.id}`;

/**
 * ISO/IEC TS 27560 consent receipt (DPV profile `dpv-27560:receipt`) wrapping the record: the
 * parts every record has, then `record`, the kind's own (notice, processes, controls, status).
 */
export function iso27560Document<F extends string, R extends object>(
  facts: RecordFacts<F>,
  record: R,
) {
  const receiptId = exportId(facts, 'iso-27560');
  const controller = controllerIri(facts.controller);
  return {
    '@context': iso27560Context,
    '@id': `urn:uuid:${receiptId}`,
    '@type': 'dpv:ConsentReceipt' as const,
    'dct:identifier': receiptId,
    'dpv:hasIdentifier': receiptId,
    'dct:conformsTo': `${dpv27560}receipt`,
    'dct:created': facts.issuedAt,
    'dct:publisher': controller,
    'schema:recipient': 'dpv:DataSubject',
    'dpv:hasRecordOfActivity': {
      '@id': `urn:uuid:${facts.recordId}`,
      '@type': 'dpv:ConsentRecord' as const,
      'dct:identifier': facts.recordId,
      'dct:conformsTo': `${dpv27560}record`,
      'dpv:hasDataSubject': { '@type': 'dpv:DataSubject', 'dct:identifier': facts.subjectId },
      'dpv:hasDataController': {
        '@id': controller,
        '@type': 'dpv:DataController',
        'dct:identifier': facts.controller.id,
        'schema:name': facts.controller.alias,
      },
      'dpv:hasJurisdiction': 'clog:NotRecorded',
      'dpv:hasLegalBasis': 'dpv:ExpressedConsent',
      ...record,
    },
    'clog:proof': isoProofOf(facts.proof),
  };
}

/** A consent status: of `type`, indicated by the data subject at `time` by `method`, until. */
interface StatusFacts<T extends string> {
  type: T;
  time: string;
  method: string;
  /** What ends it, in words. */
  until: string;
}

/**
 * A process for `purpose`: no data or storage recorded, the tenant the recipient, and its own
 * consent status when it has one apart from the record's.
 */
export function isoProcess<P extends object, T extends string = never>(
  controller: Controller,
  purpose: P,
  status?: StatusFacts<T>,
) {
  return {
    '@type': 'dpv:Process',
    'dpv:hasPurpose': purpose,
    'dpv:hasPersonalData': 'clog:NotRecorded',
    'dpv:hasStorageCondition': 'clog:NotRecorded',
    'dpv:hasRecipient': controllerIri(controller),
    ...(status ? { 'dpv:hasConsentStatus': isoConsentStatus(status) } : {}),
  };
}

export function isoConsentStatus<T extends string>(status: StatusFacts<T>) {
  return {
    '@type': status.type,
    'dpv:isIndicatedAtTime': status.time,
    'dpv:isIndicatedBy': 'dpv:DataSubject',
    'dpv:hasIndicationMethod': status.method,
    'dpv:hasDuration': { '@type': 'dpv:UntilEventDuration', 'dct:description': status.until },
  };
}

/** A Kantara purpose as a kind states it; the rest of its fields are the same for every kind. */
interface PurposeFacts {
  purpose: string;
  /** None recorded when absent. */
  purposeCategory?: string[];
  primaryPurpose: boolean;
  termination: string;
}

/**
 * Kantara Consent Receipt v1.1 with one service, the kind's record and the proof under
 * `consentLog`.
 */
export function kantaraDocument<F extends string, L extends object>(
  facts: RecordFacts<F>,
  kind: {
    collectionMethod: string;
    /** Empty: none recorded. */
    policyUrl: string;
    service: string;
    purposes: PurposeFacts[];
    consentLog: L;
    /** The sensitive data categories the record's purpose covers; none when absent. */
    sensitive?: readonly string[];
  },
) {
  return {
    version: kantaraVersion,
    jurisdiction: unspecified,
    consentTimestamp: Math.floor(Date.parse(facts.decidedAt) / 1000),
    collectionMethod: kind.collectionMethod,
    consentReceiptID: exportId(facts, 'kantara'),
    publicKey: facts.proof.verifierKey,
    // v1.1 asks for ISO 639-1: the tag's language alone.
    language: new Intl.Locale(facts.locale).language,
    piiPrincipalId: facts.subjectId,
    piiControllers: [
      {
        piiController: facts.controller.alias,
        onBehalf: false,
        contact: unspecified,
        address: {},
        email: unspecified,
        phone: unspecified,
      },
    ],
    policyUrl: kind.policyUrl || unspecified,
    services: [{ service: kind.service, purposes: kind.purposes.map(kantaraPurpose) }],
    sensitive: (kind.sensitive ?? []).length > 0,
    spiCat: [...(kind.sensitive ?? [])],
    consentLog: { ...kind.consentLog, proof: facts.proof },
  };
}

/** Given expressly, of no recorded data, disclosed to no one recorded. */
function kantaraPurpose(purpose: PurposeFacts) {
  return {
    purpose: purpose.purpose,
    purposeCategory: purpose.purposeCategory ?? [unspecified],
    consentType: 'EXPLICIT',
    piiCategory: [unspecified],
    primaryPurpose: purpose.primaryPurpose,
    termination: purpose.termination,
    thirdPartyDisclosure: false,
  };
}

/** The same proof in JSON-LD: every key a term of our namespace. */
function isoProofOf<F extends string>(proof: ExportProof<F>) {
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
 * A receipt id that is the same for the same record, format and checkpoint (a name-based
 * UUID), so exporting twice gives one receipt, and a later checkpoint another.
 */
function exportId<F extends string>(
  facts: RecordFacts<F>,
  format: 'iso-27560' | 'kantara',
): string {
  return uuidV5(`${format}\n${facts.proof.checkpoint}`, facts.recordId.toLowerCase());
}
