/**
 * The OpenAPI shapes of the receipt exports: what every kind of record's shares (the receipt,
 * the record's head, the proof, the Kantara envelope), and a decision's own. A cookie
 * decision's own are in cookie-export-schemas.ts.
 */
import { type TProperties, type TSchema, Type } from 'typebox';
import { ActedBy, ExplicitAct } from '../decisions/index.js';

export const Str = (description?: string) => Type.String(description ? { description } : {});
export const DateTime = Type.String({ format: 'date-time' });

/** What names a kind's record and its subject, in the descriptions of the fields. */
export interface ExportKind<F extends string> {
  leafFormat: F;
  /** The record id, as its description says it ("The decision id"). */
  record: string;
  /** Whose decision it is ("customer id"). */
  subject: string;
  /** What the Kantara `policyUrl` is. */
  policy: string;
}

export function proofFields<F extends string>(kind: ExportKind<F>) {
  return {
    leafFormat: Type.Literal(kind.leafFormat),
    origin: Str("The log's checkpoint origin"),
    leafIndex: Type.Integer({ minimum: 0 }),
    treeSize: Type.Integer({ minimum: 1 }),
    leaf: Str('The leaf bytes (UTF-8 text)'),
    checkpoint: Str('The signed checkpoint the proof leads to'),
    tlogProof: Str('C2SP tlog-proof@v1 text: verifies with the verifier key alone'),
    verifierKey: Str('C2SP signed-note verifier key of the log'),
    subjectSalt: Str(`Opens the leaf's subject commitment with the ${kind.subject}`),
  };
}

/** The same fields as terms of our namespace (`clog:`), in the same order. */
function inOurNamespace<P extends TProperties>(fields: P) {
  return Object.fromEntries(
    Object.entries(fields).map(([key, schema]) => [`clog:${key}`, schema]),
  ) as { [K in keyof P & string as `clog:${K}`]: P[K] };
}

/** A consent status of the given types, indicated at a time by a method, for a duration. */
export function isoStatus<T extends string>(types: readonly T[]) {
  return Type.Object({
    '@type': Type.Enum(types),
    'dpv:isIndicatedAtTime': DateTime,
    'dpv:isIndicatedBy': Str(),
    'dpv:hasIndicationMethod': Str(),
    'dpv:hasDuration': Type.Object({ '@type': Str(), 'dct:description': Str() }),
  });
}

/** What a process says beyond its purpose. */
export const isoProcessFields = {
  'dpv:hasPersonalData': Str(),
  'dpv:hasStorageCondition': Str(),
  'dpv:hasRecipient': Str(),
};

/** The ISO/IEC TS 27560 receipt around a kind's record: `record` its own fields. */
export function iso27560Schema<F extends string, P extends TProperties>(
  kind: ExportKind<F>,
  record: P,
  description: string,
) {
  const IsoRecord = Type.Object({
    '@id': Str(),
    '@type': Type.Literal('dpv:ConsentRecord'),
    'dct:identifier': Str(kind.record),
    'dct:conformsTo': Str(),
    'dpv:hasDataSubject': Type.Object({
      '@type': Str(),
      'dct:identifier': Str(`The ${kind.subject}`),
    }),
    'dpv:hasDataController': Type.Object({
      '@id': Str(),
      '@type': Str(),
      'dct:identifier': Str('The tenant id'),
      'schema:name': Str("The tenant's alias"),
    }),
    'dpv:hasJurisdiction': Str(),
    'dpv:hasLegalBasis': Str(),
    ...record,
  });
  return Type.Object(
    {
      '@context': Type.Object(
        { dpv: Str(), 'dpv-27560': Str(), dct: Str(), schema: Str(), xsd: Str(), clog: Str() },
        { additionalProperties: true },
      ),
      '@id': Str(),
      '@type': Type.Literal('dpv:ConsentReceipt'),
      'dct:identifier': Str('The receipt id'),
      'dpv:hasIdentifier': Str('The receipt id'),
      'dct:conformsTo': Str(),
      'dct:created': DateTime,
      'dct:publisher': Str(),
      'schema:recipient': Str(),
      'dpv:hasRecordOfActivity': IsoRecord,
      'clog:proof': Type.Object({
        '@type': Type.Literal('clog:InclusionProof'),
        ...inOurNamespace(proofFields(kind)),
      }),
    },
    { description },
  );
}

/** A Kantara Consent Receipt v1.1 of a kind's record: `log` what its `consentLog` adds. */
export function kantaraSchema<F extends string, P extends TProperties>(
  kind: ExportKind<F>,
  log: P,
  logDescription: string,
) {
  return Type.Object(
    {
      version: Type.Literal('KI-CR-v1.1.0'),
      jurisdiction: Str(),
      consentTimestamp: Type.Integer({ description: 'Seconds since 1970-01-01T00:00:00Z' }),
      collectionMethod: Str(),
      consentReceiptID: Type.String({ format: 'uuid' }),
      publicKey: Str("The log's verifier key"),
      language: Str(),
      piiPrincipalId: Str(`The ${kind.subject}`),
      piiControllers: Type.Array(
        Type.Object({
          piiController: Str("The tenant's alias"),
          onBehalf: Type.Boolean(),
          contact: Str(),
          address: Type.Object({}),
          email: Str(),
          phone: Str(),
        }),
      ),
      policyUrl: Str(kind.policy),
      services: Type.Array(
        Type.Object({
          service: Str(),
          purposes: Type.Array(
            Type.Object({
              purpose: Str(),
              purposeCategory: Type.Array(Str()),
              consentType: Str(),
              piiCategory: Type.Array(Str()),
              primaryPurpose: Type.Boolean(),
              termination: Str(),
              thirdPartyDisclosure: Type.Boolean(),
            }),
          ),
        }),
      ),
      sensitive: Type.Boolean(),
      spiCat: Type.Array(Str()),
      consentLog: Type.Object(
        { ...log, proof: Type.Object(proofFields(kind)) },
        { description: logDescription },
      ),
    },
    { description: 'Kantara Consent Receipt v1.1.0' },
  );
}

const decisionKind: ExportKind<'consent-log/leaf/v1'> = {
  leafFormat: 'consent-log/leaf/v1',
  record: 'The decision id',
  subject: 'customer id',
  policy: 'URL of the text shown',
};

export const Iso27560Receipt = iso27560Schema(
  decisionKind,
  {
    'dpv:hasNotice': Type.Object({
      '@id': Str('URL of the text shown'),
      '@type': Str(),
      'dct:identifier': Str('The consent version id'),
      'dct:isVersionOf': Type.Object({ 'dct:identifier': Str(), 'dct:title': Str() }),
      'schema:version': Str('The version tag'),
      'clog:versionNumber': Type.Integer({ minimum: 1 }),
      'clog:contentSha256': Str('Hex SHA-256 of the text shown'),
      'dct:issued': DateTime,
      'dct:language': Str(),
    }),
    'dpv:hasProcess': Type.Object({
      '@type': Str(),
      'dpv:hasPurpose': Type.Object({
        '@type': Str(),
        'dct:title': Str(),
        'dct:description': Type.Optional(Str()),
      }),
      ...isoProcessFields,
      'dpv:hasPersonalData': Type.Union([
        Str('clog:NotRecorded: no data recorded'),
        Type.Array(
          Type.Object({
            '@type': Type.Literal('dpv:SensitivePersonalData'),
            'dct:identifier': Str('A sensitive data category of PDPA section 26 (docs/pdpa.md)'),
          }),
          { description: 'The sensitive data the template covers' },
        ),
      ]),
    }),
    'dpv:hasConsentControl': Type.Object({
      '@type': Str(),
      'dct:description': Str(),
      'dpv:isExercisedAt': Str(),
    }),
    'dpv:hasConsentStatus': isoStatus([
      'dpv:ConsentGiven',
      'dpv:ConsentRefused',
      'dpv:ConsentWithdrawn',
    ]),
    'dpv:hasConsentType': Type.Optional(
      Type.Literal('dpv:ExplicitlyExpressedConsent', {
        description: 'With an explicit act (PDPA section 26)',
      }),
    ),
    'clog:explicitAct': Type.Optional(ExplicitAct),
    'clog:actedBy': Type.Optional(ActedBy),
  },
  'ISO/IEC TS 27560 consent receipt in W3C DPV JSON-LD (dpv-27560:receipt)',
);

export const KantaraReceipt = kantaraSchema(
  decisionKind,
  {
    decision: Type.Enum(['given', 'reject', 'withdraw']),
    decisionId: Type.String({ format: 'uuid' }),
    decidedAt: DateTime,
    templateCode: Str(),
    consentVersionId: Type.String({ format: 'uuid' }),
    version: Type.Integer({ minimum: 1 }),
    tag: Str(),
    contentSha256: Str(),
    explicit: Type.Optional(ExplicitAct),
    actedBy: Type.Optional(ActedBy),
  },
  'Not in v1.1: the decision itself and its proof in the decision log',
);

/** The 200 answer of an ISO export: the document as JSON-LD. */
export const isoAnswer = (description: string, schema: TSchema) => ({
  description,
  content: { 'application/ld+json': { schema } },
});
