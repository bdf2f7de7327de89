import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ExportSource,
  iso27560Receipt,
  kantaraReceipt,
  type OpenReceipt,
} from '../../src/decision-log/exports.js';
import type { Receipt } from '../../src/decisions/index.js';
import { parseLeaf, parseVerifierKey, verifyTlogProof } from '../../src/proof/index.js';
import { createTemplate } from '../../src/templates/service.js';
import { apiOf } from '../helpers/api.js';
import { expectErrorShape, json, startTestApp, type TestApp, testLogKeys } from '../helpers/app.js';
import { publish, type SeededTenant, seedTenant, unique } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { documentedSubject, exportReceiptId } from '../proof/documented.js';

const dpv = 'https://w3id.org/dpv#';
const dpv27560 = 'https://w3id.org/dpv/schema/dpv-27560#';

/** The inline JSON-LD context docs/proof.md describes, written out. */
const isoContext = {
  dpv: 'https://w3id.org/dpv#',
  'dpv-27560': 'https://w3id.org/dpv/schema/dpv-27560#',
  dct: 'http://purl.org/dc/terms/',
  schema: 'https://schema.org/',
  xsd: 'http://www.w3.org/2001/XMLSchema#',
  clog: 'urn:consent-service:consent-log#',
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
};

/** What an export is made from: the decision's JSON receipt and the facts the test set up. */
interface Known {
  receipt: OpenReceipt;
  tenant: { id: string; alias: string };
  templateCode: string;
  template: { name: string; description: string };
  tag: string;
  publishedAt: string;
  contentSha256: string;
  noticeUrl: string;
  baseUrl: string;
}

const isoStatus = {
  given: 'dpv:ConsentGiven',
  reject: 'dpv:ConsentRefused',
  withdraw: 'dpv:ConsentWithdrawn',
} as const;
const kantaraWords = {
  given: 'consent given',
  reject: 'consent refused',
  withdraw: 'consent withdrawn',
} as const;

/** The ISO/IEC TS 27560 document docs/proof.md maps a receipt to, written out. */
function expectedIso(k: Known, created: string) {
  const { decision } = k.receipt;
  const receiptId = exportReceiptId(decision.decision_id, 'iso-27560', k.receipt.checkpoint);
  const controller = `urn:uuid:${k.tenant.id}`;
  return {
    '@context': isoContext,
    '@id': `urn:uuid:${receiptId}`,
    '@type': 'dpv:ConsentReceipt',
    'dct:identifier': receiptId,
    'dpv:hasIdentifier': receiptId,
    'dct:conformsTo': 'https://w3id.org/dpv/schema/dpv-27560#receipt',
    'dct:created': created,
    'dct:publisher': controller,
    'schema:recipient': 'dpv:DataSubject',
    'dpv:hasRecordOfActivity': {
      '@id': `urn:uuid:${decision.decision_id}`,
      '@type': 'dpv:ConsentRecord',
      'dct:identifier': decision.decision_id,
      'dct:conformsTo': 'https://w3id.org/dpv/schema/dpv-27560#record',
      'dpv:hasDataSubject': { '@type': 'dpv:DataSubject', 'dct:identifier': decision.customer_id },
      'dpv:hasDataController': {
        '@id': controller,
        '@type': 'dpv:DataController',
        'dct:identifier': k.tenant.id,
        'schema:name': k.tenant.alias,
      },
      'dpv:hasJurisdiction': 'clog:NotRecorded',
      'dpv:hasLegalBasis': 'dpv:ExpressedConsent',
      'dpv:hasNotice': {
        '@id': k.noticeUrl,
        '@type': 'dpv:ConsentNotice',
        'dct:identifier': decision.consent_version_id,
        'dct:isVersionOf': { 'dct:identifier': k.templateCode, 'dct:title': k.template.name },
        'schema:version': k.tag,
        'clog:versionNumber': decision.version,
        'clog:contentSha256': k.contentSha256,
        'dct:issued': k.publishedAt,
        'dct:language': 'en',
      },
      'dpv:hasProcess': {
        '@type': 'dpv:Process',
        'dpv:hasPurpose': {
          '@type': 'dpv:Purpose',
          'dct:title': k.template.name,
          ...(k.template.description ? { 'dct:description': k.template.description } : {}),
        },
        'dpv:hasPersonalData': 'clog:NotRecorded',
        'dpv:hasStorageCondition': 'clog:NotRecorded',
        'dpv:hasRecipient': controller,
      },
      'dpv:hasConsentControl': {
        '@type': 'dpv:WithdrawConsent',
        'dct:description': `Ask ${k.tenant.alias} to record a "withdraw" decision on ${k.templateCode}; it does so through the consent service API (isExercisedAt).`,
        'dpv:isExercisedAt': `${k.baseUrl}/api/v1/customers/${encodeURIComponent(decision.customer_id)}/consents/decisions`,
      },
      'dpv:hasConsentStatus': {
        '@type': isoStatus[decision.decision],
        'dpv:isIndicatedAtTime': decision.decided_at,
        'dpv:isIndicatedBy': 'dpv:DataSubject',
        'dpv:hasIndicationMethod': `Decision "${decision.decision}" recorded through the API`,
        'dpv:hasDuration': {
          '@type': 'dpv:UntilEventDuration',
          'dct:description': "Until the customer's next decision on this template",
        },
      },
    },
    'clog:proof': {
      '@type': 'clog:InclusionProof',
      'clog:leafFormat': 'consent-log/leaf/v1',
      'clog:origin': `consent.test/consent-log/${k.tenant.id}`,
      'clog:leafIndex': k.receipt.leaf_index,
      'clog:treeSize': k.receipt.tree_size,
      'clog:leaf': k.receipt.leaf,
      'clog:checkpoint': k.receipt.checkpoint,
      'clog:tlogProof': k.receipt.tlog_proof,
      'clog:verifierKey': testLogKeys.verifierKey,
      'clog:subjectSalt': k.receipt.opening.subject_salt,
    },
  };
}

/** The Kantara Consent Receipt v1.1 docs/proof.md maps a receipt to, written out. */
function expectedKantara(k: Known) {
  const { decision } = k.receipt;
  return {
    version: 'KI-CR-v1.1.0',
    jurisdiction: 'unspecified',
    consentTimestamp: Math.floor(Date.parse(decision.decided_at) / 1000),
    collectionMethod: `Consent service API, on the controller's request: ${kantaraWords[decision.decision]}`,
    consentReceiptID: exportReceiptId(decision.decision_id, 'kantara', k.receipt.checkpoint),
    publicKey: testLogKeys.verifierKey,
    language: 'en',
    piiPrincipalId: decision.customer_id,
    piiControllers: [
      {
        piiController: k.tenant.alias,
        onBehalf: false,
        contact: 'unspecified',
        address: {},
        email: 'unspecified',
        phone: 'unspecified',
      },
    ],
    policyUrl: k.noticeUrl,
    services: [
      {
        service: k.template.name,
        purposes: [
          {
            purpose: k.template.description || k.template.name,
            purposeCategory: ['unspecified'],
            consentType: 'EXPLICIT',
            piiCategory: ['unspecified'],
            primaryPurpose: true,
            termination: `A "withdraw" decision on ${k.templateCode}, recorded through the controller`,
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
      templateCode: k.templateCode,
      consentVersionId: decision.consent_version_id,
      version: decision.version,
      tag: k.tag,
      contentSha256: k.contentSha256,
      proof: {
        leafFormat: 'consent-log/leaf/v1',
        origin: `consent.test/consent-log/${k.tenant.id}`,
        leafIndex: k.receipt.leaf_index,
        treeSize: k.receipt.tree_size,
        leaf: k.receipt.leaf,
        checkpoint: k.receipt.checkpoint,
        tlogProof: k.receipt.tlog_proof,
        verifierKey: testLogKeys.verifierKey,
        subjectSalt: k.receipt.opening.subject_salt,
      },
    },
  };
}
const verifier = () => {
  const key = parseVerifierKey(testLogKeys.verifierKey);
  if (!key.ok) throw new Error(key.reason);
  return key.value;
};

/** Every prefix a key or a compact IRI of the document uses is one its context defines. */
function undefinedPrefixes(document: Record<string, any>): string[] {
  const context = document['@context'] as Record<string, unknown>;
  const missing = new Set<string>();
  const check = (text: string) => {
    const prefix = /^([a-z][a-z0-9-]*):(?!\/\/)/.exec(text)?.[1];
    if (prefix && prefix !== 'urn' && !(prefix in context)) missing.add(prefix);
  };
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        if (key === '@context') continue;
        check(key);
        if (key === '@type' || typeof inner !== 'string' || !/^[a-z-]+:\S+$/.test(inner)) {
          walk(inner);
        } else check(inner);
      }
    } else if (typeof value === 'string') check(value);
  };
  walk(document);
  return [...missing];
}

describe.each(stores)('receipt exports on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let b: SeededTenant;
  let code: string;
  let versionId: string;
  let publishedAt: string;
  let tag: string;
  // SHA-256 (hex) of the versions' text, '<p>Consent text</p>'.
  const contentSha256 = 'e29b7d2e22b31f02ce9c520c6a8a70c0d2749340a1b15e11e9614e8a384f954f';
  let linked: { versionId: string; fileUrl: string; code: string };

  beforeAll(async () => {
    // A long interval: the tests decide when leaves are appended (`?wait=true` runs a pass).
    t = await startTestApp(store, { LOG_INTEGRATE_INTERVAL_MS: '60000' });
    a = await seedTenant(t.db);
    b = await seedTenant(t.db);
    code = unique('newsletter');
    await t.db.transaction().execute((trx) =>
      createTemplate(trx, a.tenant.id, {
        code,
        name: 'Newsletter',
        description: 'Sending the weekly newsletter by e-mail',
      }),
    );
    const version = await publish(t.db, a.tenant.id, code, {
      content_html: '<p>Consent text</p>',
    });
    versionId = version.consent_version_id;
    publishedAt = version.published_at;
    tag = version.tag;
    const linkedCode = unique('terms');
    await t.db
      .transaction()
      .execute((trx) => createTemplate(trx, a.tenant.id, { code: linkedCode, name: 'Terms' }));
    const fileUrl = 'https://example.test/terms-v1.html';
    const linkedVersion = await publish(t.db, a.tenant.id, linkedCode, { file_url: fileUrl });
    linked = { versionId: linkedVersion.consent_version_id, fileUrl, code: linkedCode };
  });
  afterAll(async () => {
    await t.close();
  });

  const get = (url: string, headers = a.headers) =>
    t.app.inject({ method: 'GET', url, headers: { ...headers, 'user-agent': 'ExportTest/1.0' } });

  async function decide(customer: string, decision: string, version = versionId): Promise<string> {
    const response = await apiOf(t.app, { ...a.headers, 'user-agent': 'ExportTest/1.0' }).decide(
      customer,
      version,
      decision,
    );
    expect(response.statusCode, response.body).toBe(201);
    return json(response).data.decision_id;
  }

  /** The receipt of a decision whose customer was not erased: it names them and opens. */
  async function receiptOf(id: string): Promise<OpenReceipt> {
    const response = await get(`/api/v1/decisions/${id}/receipt?wait=true`);
    expect(response.statusCode, response.body).toBe(200);
    const receipt: Receipt = json(response).data;
    const { decision, opening } = receipt;
    if (decision.customer_id === null || opening === null) {
      throw new Error(`the receipt of ${id} does not name its customer: ${response.body}`);
    }
    return { ...receipt, decision: { ...decision, customer_id: decision.customer_id }, opening };
  }

  /** What the exports of a decision on the newsletter version are made from. */
  function knownOf(receipt: OpenReceipt): Known {
    return {
      receipt,
      tenant: { id: a.tenant.id, alias: a.tenant.alias },
      templateCode: code,
      template: { name: 'Newsletter', description: 'Sending the weekly newsletter by e-mail' },
      tag,
      publishedAt,
      contentSha256,
      noticeUrl: `https://consent.test/api/content/${versionId}.html`,
      baseUrl: 'https://consent.test',
    };
  }

  it.each(['iso-27560', 'kantara'])(
    'before the leaf is appended, the %s export answers 202 with Retry-After: 1',
    async (format) => {
      const id = await decide(unique('early'), 'given');
      const early = await get(`/api/v1/decisions/${id}/receipt/${format}`);
      expect(early.statusCode).toBe(202);
      expect(early.headers['retry-after']).toBe('1');
      expect(json(early).data).toEqual({ decision_id: id, status: 'queued' });
    },
  );

  it('for a given decision, the ISO 27560 export is the DPV receipt of the record, with a proof that verifies', async () => {
    const customer = unique('alice');
    const id = await decide(customer, 'given');
    const response = await get(`/api/v1/decisions/${id}/receipt/iso-27560?wait=true`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/ld\+json/);
    expect(response.headers['cache-control']).toBe('no-store');
    const document = json(response);
    const receipt = await receiptOf(id);
    // Exactly the documented mapping of the receipt, nothing lost on the way out; the creation
    // time is when the export was made.
    const before = Date.now();
    expect(document).toEqual(expectedIso(knownOf(receipt), document['dct:created']));
    expect(document['dct:created']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Date.parse(document['dct:created'])).toBeLessThanOrEqual(before);
    expect(Date.parse(document['dct:created'])).toBeGreaterThanOrEqual(
      Date.parse(receipt.decision.decided_at),
    );

    expect(document['@context']).toMatchObject({
      dpv,
      'dpv-27560': dpv27560,
      dct: 'http://purl.org/dc/terms/',
      schema: 'https://schema.org/',
      clog: 'urn:consent-service:consent-log#',
      'dct:conformsTo': { '@type': '@id' },
      'dpv:isIndicatedAtTime': { '@type': 'xsd:dateTime' },
    });
    expect(undefinedPrefixes(document)).toEqual([]);
    expect(document).toMatchObject({
      '@type': 'dpv:ConsentReceipt',
      'dct:conformsTo': `${dpv27560}receipt`,
      'schema:recipient': 'dpv:DataSubject',
    });
    expect(document['dpv:hasIdentifier']).toMatch(/^[0-9a-f-]{36}$/);
    expect(document['dct:identifier']).toBe(document['dpv:hasIdentifier']);
    expect(Date.parse(document['dct:created'])).not.toBeNaN();

    const record = document['dpv:hasRecordOfActivity'];
    expect(record).toMatchObject({
      '@type': 'dpv:ConsentRecord',
      'dct:identifier': id,
      'dct:conformsTo': `${dpv27560}record`,
      'dpv:hasDataSubject': { '@type': 'dpv:DataSubject', 'dct:identifier': customer },
      'dpv:hasDataController': {
        '@type': 'dpv:DataController',
        'schema:name': a.tenant.alias,
        'dct:identifier': a.tenant.id,
      },
      'dpv:hasJurisdiction': 'clog:NotRecorded',
      'dpv:hasLegalBasis': 'dpv:ExpressedConsent',
      'dpv:hasNotice': {
        '@id': `https://consent.test/api/content/${versionId}.html`,
        '@type': 'dpv:ConsentNotice',
        'dct:identifier': versionId,
        'dct:isVersionOf': { 'dct:identifier': code, 'dct:title': 'Newsletter' },
        'schema:version': tag,
        'clog:versionNumber': 1,
        'clog:contentSha256': contentSha256,
        'dct:issued': publishedAt,
        'dct:language': 'en',
      },
      'dpv:hasProcess': {
        'dpv:hasPurpose': {
          '@type': 'dpv:Purpose',
          'dct:title': 'Newsletter',
          'dct:description': 'Sending the weekly newsletter by e-mail',
        },
      },
      'dpv:hasConsentControl': {
        '@type': 'dpv:WithdrawConsent',
        'dpv:isExercisedAt': `https://consent.test/api/v1/customers/${customer}/consents/decisions`,
      },
      'dpv:hasConsentStatus': {
        '@type': 'dpv:ConsentGiven',
        'dpv:isIndicatedAtTime': receipt.decision.decided_at,
        'dpv:isIndicatedBy': 'dpv:DataSubject',
      },
    });

    const proof = document['clog:proof'];
    expect(proof).toMatchObject({
      'clog:origin': `consent.test/consent-log/${a.tenant.id}`,
      'clog:leafIndex': receipt.leaf_index,
      'clog:treeSize': receipt.tree_size,
      'clog:checkpoint': receipt.checkpoint,
      'clog:verifierKey': testLogKeys.verifierKey,
    });
    const verified = verifyTlogProof(proof['clog:tlogProof'], [verifier()]);
    if (!verified.ok) throw new Error(verified.reason);
    expect(verified.value.index).toBe(proof['clog:leafIndex']);
    expect(verified.value.checkpoint.origin).toBe(proof['clog:origin']);
    const leaf = parseLeaf(Buffer.from(verified.value.leaf).toString('utf8'));
    expect(leaf).toMatchObject({ recordId: id, decision: 'given', contentSha256 });
    expect(leaf?.subject).toBe(documentedSubject(proof['clog:subjectSalt'], customer));
  });

  it('for a given decision, the Kantara export has the v1.1 fields, and its proof verifies', async () => {
    const customer = unique('bob');
    const id = await decide(customer, 'given');
    const response = await get(`/api/v1/decisions/${id}/receipt/kantara?wait=true`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    const document = json(response);
    const receipt = await receiptOf(id);
    expect(document).toEqual(expectedKantara(knownOf(receipt)));

    expect(document).toMatchObject({
      version: 'KI-CR-v1.1.0',
      jurisdiction: 'unspecified',
      consentTimestamp: Math.floor(Date.parse(receipt.decision.decided_at) / 1000),
      publicKey: testLogKeys.verifierKey,
      language: 'en',
      piiPrincipalId: customer,
      piiControllers: [{ piiController: a.tenant.alias, onBehalf: false }],
      policyUrl: `https://consent.test/api/content/${versionId}.html`,
      services: [
        {
          service: 'Newsletter',
          purposes: [
            {
              purpose: 'Sending the weekly newsletter by e-mail',
              consentType: 'EXPLICIT',
              primaryPurpose: true,
            },
          ],
        },
      ],
      sensitive: false,
      spiCat: [],
      consentLog: {
        decision: 'given',
        decisionId: id,
        decidedAt: receipt.decision.decided_at,
        templateCode: code,
        consentVersionId: versionId,
        version: 1,
        tag,
        contentSha256,
      },
    });
    expect(document.consentReceiptID).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-/);
    expect(document.collectionMethod).toContain('consent given');
    for (const field of ['contact', 'email', 'phone', 'address']) {
      expect(document.piiControllers[0]).toHaveProperty(field);
    }
    const verified = verifyTlogProof(document.consentLog.proof.tlogProof, [verifier()]);
    if (!verified.ok) throw new Error(verified.reason);
    expect(verified.value.index).toBe(receipt.leaf_index);
    expect(parseLeaf(Buffer.from(verified.value.leaf).toString('utf8'))?.recordId).toBe(id);
  });

  it.each([
    ['reject', 'dpv:ConsentRefused', 'consent refused'],
    ['withdraw', 'dpv:ConsentWithdrawn', 'consent withdrawn'],
  ])(
    'a %s decision is %s in ISO 27560 and said in the Kantara receipt',
    async (decision, status, words) => {
      const customer = unique(decision);
      if (decision === 'withdraw') await decide(customer, 'given');
      const id = await decide(customer, decision);
      const iso = await get(`/api/v1/decisions/${id}/receipt/iso-27560?wait=true`);
      expect(iso.statusCode, iso.body).toBe(200);
      const receipt = await receiptOf(id);
      expect(json(iso)).toEqual(expectedIso(knownOf(receipt), json(iso)['dct:created']));
      const record = json(iso)['dpv:hasRecordOfActivity'];
      expect(record['dct:identifier']).toBe(id);
      expect(record['dpv:hasConsentStatus']['@type']).toBe(status);
      const kantara = await get(`/api/v1/decisions/${id}/receipt/kantara`);
      expect(kantara.statusCode, kantara.body).toBe(200);
      expect(json(kantara)).toEqual(expectedKantara(knownOf(receipt)));
      expect(json(kantara).consentLog.decision).toBe(decision);
      expect(json(kantara).collectionMethod).toContain(words);
      const verified = verifyTlogProof(json(kantara).consentLog.proof.tlogProof, [verifier()]);
      if (!verified.ok) throw new Error(verified.reason);
      expect(parseLeaf(Buffer.from(verified.value.leaf).toString('utf8'))?.decision).toBe(decision);
    },
  );

  it("a version with the operator's own URL is the notice in both exports", async () => {
    const id = await decide(unique('carol'), 'given', linked.versionId);
    const iso = json(await get(`/api/v1/decisions/${id}/receipt/iso-27560?wait=true`));
    expect(iso['dpv:hasRecordOfActivity']['dpv:hasNotice']['@id']).toBe(linked.fileUrl);
    // No description: the title alone, and the Kantara purpose is the template's name.
    expect(iso['dpv:hasRecordOfActivity']['dpv:hasProcess']['dpv:hasPurpose']).toEqual({
      '@type': 'dpv:Purpose',
      'dct:title': 'Terms',
    });
    const kantara = json(await get(`/api/v1/decisions/${id}/receipt/kantara`));
    expect(kantara.policyUrl).toBe(linked.fileUrl);
    expect(kantara.services[0].purposes[0].purpose).toBe('Terms');
  });

  it.each(['iso-27560', 'kantara'])(
    "the %s export: another tenant's decision 404 1004, an unknown one 404, a malformed id 400 1001, no key 401",
    async (format) => {
      const id = await decide(unique('private'), 'given');
      const other = await get(`/api/v1/decisions/${id}/receipt/${format}`, b.headers);
      expect(other.statusCode).toBe(404);
      expect(expectErrorShape(other).code).toBe('1004');
      const unknown = await get(
        `/api/v1/decisions/0190e8a0-0000-7000-8000-000000000000/receipt/${format}`,
      );
      expect(unknown.statusCode).toBe(404);
      expect(expectErrorShape(unknown).code).toBe('1004');
      const malformed = await get(`/api/v1/decisions/not-a-uuid/receipt/${format}`);
      expect(malformed.statusCode).toBe(400);
      expect(expectErrorShape(malformed).code).toBe('1001');
      const noKey = await t.app.inject({
        method: 'GET',
        url: `/api/v1/decisions/${id}/receipt/${format}`,
      });
      expect(noKey.statusCode).toBe(401);
      expect(expectErrorShape(noKey).code).toBe('1002');
    },
  );

  it('the OpenAPI document describes both exports under the log tag', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/api/docs/json' });
    const paths = json(response).paths;
    const iso = paths['/api/v1/decisions/{decision_id}/receipt/iso-27560'].get;
    expect(iso.tags).toEqual(['log']);
    expect(Object.keys(iso.responses['200'].content)).toEqual(['application/ld+json']);
    const kantara = paths['/api/v1/decisions/{decision_id}/receipt/kantara'].get;
    expect(kantara.tags).toEqual(['log']);
    expect(kantara.responses['200'].content['application/json'].schema.properties).toHaveProperty(
      'piiPrincipalId',
    );
  });
});

describe('receipt export mapping', () => {
  const checkpoint =
    'consent.test/consent-log/tenant-1\n5\nAAAA\n\n— consent.test/consent-log xyz\n';
  const receipt: OpenReceipt = {
    decision: {
      decision_id: '0190e8a0-0000-7000-8000-000000000001',
      customer_id: 'c/1 @x',
      template_code: 'newsletter',
      consent_version_id: '0190e8a0-0000-7000-8000-0000000000aa',
      version: 3,
      decision: 'given',
      decided_at: '2026-01-31T12:00:00.999Z',
    },
    leaf: 'consent-log/leaf/v1\n',
    leaf_index: 4,
    tree_size: 5,
    inclusion_proof: [],
    checkpoint,
    tlog_proof: `c2sp.org/tlog-proof@v1\nindex 4\n\n${checkpoint}`,
    verifier_key: 'consent.test/consent-log+01234567+AAAA',
    opening: {
      customer_id: 'c/1 @x',
      subject_salt: 'c2FsdA==',
      evidence_salt: 'ZXZpZGVuY2U=',
      ip: '192.0.2.1',
      user_agent: null,
      api_key_id: 'key-1',
    },
  };
  const source = (overrides: Partial<ExportSource> = {}): ExportSource => ({
    receipt,
    controller: { id: '0190e8a0-0000-7000-8000-0000000000cc', alias: 'acme' },
    template: { name: 'Newsletter', description: '', data_categories: [] },
    version: {
      tag: '3.0',
      published_at: '2026-01-01T00:00:00.000Z',
      content_sha256: 'ab'.repeat(32),
      file_url: null,
      locale: 'en',
    },
    publicBaseUrl: 'https://consent.example',
    issuedAt: '2026-02-01T00:00:00.000Z',
    ...overrides,
  });
  const withDecision = (decision: Receipt['decision']['decision']): ExportSource =>
    source({ receipt: { ...receipt, decision: { ...receipt.decision, decision } } });

  it.each([
    ['given', 'dpv:ConsentGiven', 'consent given'],
    ['reject', 'dpv:ConsentRefused', 'consent refused'],
    ['withdraw', 'dpv:ConsentWithdrawn', 'consent withdrawn'],
  ] as const)(
    'a %s decision is %s, and "%s" in the Kantara collection method',
    (decision, status, words) => {
      const iso = iso27560Receipt(withDecision(decision));
      expect(iso['dpv:hasRecordOfActivity']['dpv:hasConsentStatus']['@type']).toBe(status);
      const kantara = kantaraReceipt(withDecision(decision));
      expect(kantara.collectionMethod).toContain(words);
      expect(kantara.consentLog.decision).toBe(decision);
    },
  );

  it('a sensitive template, an explicit act and a representative map to DPV and Kantara terms; without them both exports are as before', () => {
    const plainIso = iso27560Receipt(source())['dpv:hasRecordOfActivity'];
    expect(plainIso['dpv:hasProcess']['dpv:hasPersonalData']).toBe('clog:NotRecorded');
    expect(plainIso['dpv:hasConsentStatus']['dpv:isIndicatedBy']).toBe('dpv:DataSubject');
    expect(plainIso).not.toHaveProperty('dpv:hasConsentType');
    expect(plainIso).not.toHaveProperty('clog:actedBy');
    const plainKantara = kantaraReceipt(source());
    expect([plainKantara.sensitive, plainKantara.spiCat]).toEqual([false, []]);
    expect(Object.keys(plainKantara.consentLog)).not.toContain('actedBy');

    const explicit = { method: 'signature', text_shown: 'I consent to my health data.' } as const;
    const actedBy = {
      role: 'parent',
      reference: 'parent-1001',
      age_band: 'under-10',
    } as const;
    const marked = source({
      receipt: { ...receipt, opening: { ...receipt.opening, explicit, acted_by: actedBy } },
      template: { name: 'Health', description: '', data_categories: ['health', 'biometric'] },
    });
    const iso = iso27560Receipt(marked)['dpv:hasRecordOfActivity'];
    expect(iso['dpv:hasProcess']['dpv:hasPersonalData']).toEqual([
      { '@type': 'dpv:SensitivePersonalData', 'dct:identifier': 'health' },
      { '@type': 'dpv:SensitivePersonalData', 'dct:identifier': 'biometric' },
    ]);
    expect(iso['dpv:hasConsentType']).toBe('dpv:ExplicitlyExpressedConsent');
    expect(iso['clog:explicitAct']).toEqual(explicit);
    expect(iso['dpv:hasConsentStatus']['dpv:isIndicatedBy']).toBe('dpv:ParentOfDataSubject');
    expect(iso['clog:actedBy']).toEqual(actedBy);
    const kantara = kantaraReceipt(marked);
    expect([kantara.sensitive, kantara.spiCat]).toEqual([true, ['health', 'biometric']]);
    expect(kantara.consentLog).toMatchObject({ explicit, actedBy });
    for (const [role, term] of [
      ['guardian', 'dpv:GuardianOfDataSubject'],
      ['curator', 'dpv:GuardianOfDataSubject'],
      ['authorised', 'dpv:Representative'],
      ['subject', 'dpv:DataSubject'],
    ] as const) {
      const by = source({
        receipt: {
          ...receipt,
          opening: { ...receipt.opening, acted_by: { role, reference: 'r', age_band: 'adult' } },
        },
      });
      expect(
        iso27560Receipt(by)['dpv:hasRecordOfActivity']['dpv:hasConsentStatus']['dpv:isIndicatedBy'],
      ).toBe(term);
    }
  });

  it('the receipt id is the documented UUID v5 of the decision, format and checkpoint, whenever it is exported', () => {
    // uuid5(decision id, "iso-27560\n" + checkpoint) and "kantara\n" + checkpoint, computed apart.
    const iso = '1afa3227-fb01-5a51-b5db-cc1ada8cfc03';
    const kantara = '0d6b7017-4686-53cc-a657-f353c4e4cf91';
    const isoOfSize6 = 'c271c924-20c3-511f-a3e7-c14e37116978';
    expect(iso27560Receipt(source())).toMatchObject({
      '@id': `urn:uuid:${iso}`,
      'dpv:hasIdentifier': iso,
      'dct:identifier': iso,
    });
    expect(
      iso27560Receipt(source({ issuedAt: '2027-01-01T00:00:00.000Z' }))['dpv:hasIdentifier'],
    ).toBe(iso);
    expect(kantaraReceipt(source()).consentReceiptID).toBe(kantara);
    const later = { ...receipt, checkpoint: checkpoint.replace('\n5\n', '\n6\n') };
    expect(iso27560Receipt(source({ receipt: later }))['dpv:hasIdentifier']).toBe(isoOfSize6);
    // The test's own reference of the documented derivation gives the same ids.
    expect(exportReceiptId(receipt.decision.decision_id, 'iso-27560', checkpoint)).toBe(iso);
    expect(exportReceiptId(receipt.decision.decision_id, 'kantara', checkpoint)).toBe(kantara);
    expect(exportReceiptId(receipt.decision.decision_id, 'iso-27560', later.checkpoint)).toBe(
      isoOfSize6,
    );
  });

  it.each([
    ['th', 'th', 'th'],
    ['en-GB', 'en-GB', 'en'],
    ['zh-Hant-TW', 'zh-Hant-TW', 'zh'],
  ])(
    'a text in %s is dct:language %s (BCP 47) and Kantara language %s (ISO 639-1)',
    (locale, iso, kantara) => {
      const localized = source({ version: { ...source().version, locale } });
      expect(
        iso27560Receipt(localized)['dpv:hasRecordOfActivity']['dpv:hasNotice']['dct:language'],
      ).toBe(iso);
      expect(kantaraReceipt(localized).language).toBe(kantara);
    },
  );

  it("the notice is the public content file unless the version has the operator's own URL", () => {
    const own = 'https://acme.example/newsletter-3.html';
    expect(iso27560Receipt(source())['dpv:hasRecordOfActivity']['dpv:hasNotice']['@id']).toBe(
      'https://consent.example/api/content/0190e8a0-0000-7000-8000-0000000000aa.html',
    );
    const linked = source({ version: { ...source().version, file_url: own } });
    expect(iso27560Receipt(linked)['dpv:hasRecordOfActivity']['dpv:hasNotice']['@id']).toBe(own);
    expect(kantaraReceipt(linked).policyUrl).toBe(own);
  });

  it('the withdrawal URL encodes the customer id; the Kantara timestamp is whole seconds', () => {
    const control = iso27560Receipt(source())['dpv:hasRecordOfActivity']['dpv:hasConsentControl'];
    expect(control['dpv:isExercisedAt']).toBe(
      'https://consent.example/api/v1/customers/c%2F1%20%40x/consents/decisions',
    );
    expect(kantaraReceipt(source()).consentTimestamp).toBe(
      Date.parse('2026-01-31T12:00:00.000Z') / 1000,
    );
  });

  it('the proof carries the origin from the checkpoint, the tlog proof and the subject salt, and no evidence', () => {
    const proof = iso27560Receipt(source())['clog:proof'];
    expect(proof).toMatchObject({
      'clog:origin': 'consent.test/consent-log/tenant-1',
      'clog:leafIndex': 4,
      'clog:treeSize': 5,
      'clog:tlogProof': receipt.tlog_proof,
      'clog:subjectSalt': 'c2FsdA==',
    });
    expect(kantaraReceipt(source()).consentLog.proof.origin).toBe(
      'consent.test/consent-log/tenant-1',
    );
    for (const document of [iso27560Receipt(source()), kantaraReceipt(source())]) {
      const text = JSON.stringify(document);
      expect(text).not.toContain('192.0.2.1');
      expect(text).not.toContain('ZXZpZGVuY2U=');
      expect(text).not.toContain('key-1');
    }
  });

  it('every compact IRI of the ISO document has its prefix in the context', () => {
    expect(undefinedPrefixes(iso27560Receipt(source()))).toEqual([]);
    expect(iso27560Receipt(source())['@context'].dpv).toBe(dpv);
  });
});
