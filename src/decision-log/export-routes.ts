import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { callerOf } from '../api-keys/index.js';
import type { Db } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { answer, apiKeySecurity } from '../platform/http-schemas.js';
import { nowIso } from '../platform/time.js';
import type { SubjectVault } from '../subjects/index.js';
import { getTemplateByCode, getVersion } from '../templates/index.js';
import { getTenantById } from '../tenants/index.js';
import { type ExportSource, iso27560Receipt, kantaraReceipt, type OpenReceipt } from './exports.js';
import { awaitReceipt } from './receipts.js';
import {
  receiptErrors,
  receiptPending,
  receiptRequest,
  receiptWaitDescription,
  sendQueued,
} from './routes.js';
import type { Receipt } from './schemas.js';

const Str = (description?: string) => Type.String(description ? { description } : {});
const DateTime = Type.String({ format: 'date-time' });

const ProofFields = {
  leafFormat: Type.Literal('consent-log/leaf/v1'),
  origin: Str("The log's checkpoint origin"),
  leafIndex: Type.Integer({ minimum: 0 }),
  treeSize: Type.Integer({ minimum: 1 }),
  leaf: Str('The leaf bytes (UTF-8 text)'),
  checkpoint: Str('The signed checkpoint the proof leads to'),
  tlogProof: Str('C2SP tlog-proof@v1 text: verifies with the verifier key alone'),
  verifierKey: Str('C2SP signed-note verifier key of the log'),
  subjectSalt: Str("Opens the leaf's subject commitment with the customer id"),
};

const IsoProof = Type.Object({
  '@type': Type.Literal('clog:InclusionProof'),
  'clog:leafFormat': ProofFields.leafFormat,
  'clog:origin': ProofFields.origin,
  'clog:leafIndex': ProofFields.leafIndex,
  'clog:treeSize': ProofFields.treeSize,
  'clog:leaf': ProofFields.leaf,
  'clog:checkpoint': ProofFields.checkpoint,
  'clog:tlogProof': ProofFields.tlogProof,
  'clog:verifierKey': ProofFields.verifierKey,
  'clog:subjectSalt': ProofFields.subjectSalt,
});

const IsoStatus = Type.Object({
  '@type': Type.Enum(['dpv:ConsentGiven', 'dpv:ConsentRefused', 'dpv:ConsentWithdrawn']),
  'dpv:isIndicatedAtTime': DateTime,
  'dpv:isIndicatedBy': Str(),
  'dpv:hasIndicationMethod': Str(),
  'dpv:hasDuration': Type.Object({ '@type': Str(), 'dct:description': Str() }),
});

const IsoRecord = Type.Object({
  '@id': Str(),
  '@type': Type.Literal('dpv:ConsentRecord'),
  'dct:identifier': Str('The decision id'),
  'dct:conformsTo': Str(),
  'dpv:hasDataSubject': Type.Object({ '@type': Str(), 'dct:identifier': Str('The customer id') }),
  'dpv:hasDataController': Type.Object({
    '@id': Str(),
    '@type': Str(),
    'dct:identifier': Str('The tenant id'),
    'schema:name': Str("The tenant's alias"),
  }),
  'dpv:hasJurisdiction': Str(),
  'dpv:hasLegalBasis': Str(),
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
    'dpv:hasPersonalData': Str(),
    'dpv:hasStorageCondition': Str(),
    'dpv:hasRecipient': Str(),
  }),
  'dpv:hasConsentControl': Type.Object({
    '@type': Str(),
    'dct:description': Str(),
    'dpv:isExercisedAt': Str(),
  }),
  'dpv:hasConsentStatus': IsoStatus,
});

const Iso27560Receipt = Type.Object(
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
    'clog:proof': IsoProof,
  },
  { description: 'ISO/IEC TS 27560 consent receipt in W3C DPV JSON-LD (dpv-27560:receipt)' },
);

const KantaraReceipt = Type.Object(
  {
    version: Type.Literal('KI-CR-v1.1.0'),
    jurisdiction: Str(),
    consentTimestamp: Type.Integer({ description: 'Seconds since 1970-01-01T00:00:00Z' }),
    collectionMethod: Str(),
    consentReceiptID: Type.String({ format: 'uuid' }),
    publicKey: Str("The log's verifier key"),
    language: Str(),
    piiPrincipalId: Str('The customer id'),
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
    policyUrl: Str('URL of the text shown'),
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
      {
        decision: Type.Enum(['given', 'reject', 'withdraw']),
        decisionId: Type.String({ format: 'uuid' }),
        decidedAt: DateTime,
        templateCode: Str(),
        consentVersionId: Type.String({ format: 'uuid' }),
        version: Type.Integer({ minimum: 1 }),
        tag: Str(),
        contentSha256: Str(),
        proof: Type.Object(ProofFields),
      },
      { description: 'Not in v1.1: the decision itself and its proof in the decision log' },
    ),
  },
  { description: 'Kantara Consent Receipt v1.1.0' },
);

/**
 * A decision's receipt as an ISO/IEC TS 27560 receipt (DPV JSON-LD) and as a Kantara Consent
 * Receipt v1.1: the same key check, scoping, errors and `202`/`?wait=true` as the receipt itself.
 */
export const exportRoutes: FastifyPluginAsyncTypebox<{
  db: Db;
  /** Runs an integration pass now (see integrator.ts). */
  kick: () => Promise<void>;
  publicBaseUrl: string;
  vault: SubjectVault;
}> = async (app, { db, kick, publicBaseUrl, vault }) => {
  /** What an export is made of; undefined while the decision's leaf waits to be appended. */
  const sourceOf = async (tenantId: string, id: string, wait: boolean) => {
    const result = await awaitReceipt(db, vault, kick, tenantId, id, wait);
    return result.ready ? exportSource(db, tenantId, result.receipt, publicBaseUrl) : undefined;
  };

  app.get(
    '/api/v1/decisions/:decision_id/receipt/iso-27560',
    {
      schema: {
        tags: ['log'],
        operationId: 'getReceiptIso27560',
        summary: "A decision's receipt as ISO/IEC TS 27560 (W3C DPV JSON-LD)",
        description: receiptWaitDescription,
        security: apiKeySecurity,
        ...receiptRequest,
        response: {
          200: {
            description: 'The consent receipt, wrapping the consent record and the log proof',
            content: { 'application/ld+json': { schema: Iso27560Receipt } },
          },
          202: receiptPending,
          ...receiptErrors,
        },
      },
    },
    async (request, reply) => {
      const id = request.params.decision_id;
      reply.header('cache-control', 'no-store');
      const source = await sourceOf(callerOf(request).tenantId, id, request.query.wait === 'true');
      if (!source) return sendQueued(reply, id);
      return reply.type('application/ld+json').send(iso27560Receipt(source));
    },
  );

  app.get(
    '/api/v1/decisions/:decision_id/receipt/kantara',
    {
      schema: {
        tags: ['log'],
        operationId: 'getReceiptKantara',
        summary: "A decision's receipt as a Kantara Consent Receipt v1.1",
        description: receiptWaitDescription,
        security: apiKeySecurity,
        ...receiptRequest,
        response: {
          200: answer(KantaraReceipt, 'The Kantara consent receipt.'),
          202: receiptPending,
          ...receiptErrors,
        },
      },
    },
    async (request, reply) => {
      const id = request.params.decision_id;
      reply.header('cache-control', 'no-store');
      const source = await sourceOf(callerOf(request).tenantId, id, request.query.wait === 'true');
      if (!source) return sendQueued(reply, id);
      return kantaraReceipt(source);
    },
  );
};

/** What the exports say beyond the receipt: the tenant, the template and the version shown. */
async function exportSource(
  db: Db,
  tenantId: string,
  receipt: Receipt,
  publicBaseUrl: string,
): Promise<ExportSource> {
  if (!isOpen(receipt)) {
    throw new AppError('notFound', {
      message:
        "This decision's customer was erased: only its receipt remains, without whose it was.",
    });
  }
  const { decision } = receipt;
  const [tenant, template] = await Promise.all([
    getTenantById(db, tenantId),
    getTemplateByCode(db, tenantId, decision.template_code),
  ]);
  const version = await getVersion(db, template, decision.consent_version_id);
  if (version.published_at === null) throw new Error(`Version ${version.id} is not published`);
  return {
    receipt: receipt,
    controller: { id: tenant.id, alias: tenant.alias },
    template: { name: template.name, description: template.description },
    version: {
      tag: version.tag,
      published_at: version.published_at,
      content_sha256: version.content_sha256,
      file_url: version.file_url,
      locale: version.locale,
    },
    publicBaseUrl,
    issuedAt: nowIso(),
  };
}

function isOpen(receipt: Receipt): receipt is OpenReceipt {
  return receipt.opening !== null && receipt.decision.customer_id !== null;
}
