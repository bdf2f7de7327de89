/**
 * `GET /api/v1/cookie-decisions/{decision_id}/receipt/iso-27560` and `/kantara`: a website
 * visitor's choice, posted as the banner posts it, in the two standard receipt formats as
 * docs/proof.md maps it ("Exports of a cookie decision"), with a proof that verifies offline.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { type ConfigurationContent, eraseCookieVisitor } from '../../src/cookies/index.js';
import {
  type CookieExportSource,
  cookieIso27560Receipt,
  cookieKantaraReceipt,
} from '../../src/decision-log/cookie-exports.js';
import {
  parseCookieLeaf,
  parseVerifierKey,
  verifyReceipt,
  verifyTlogProof,
} from '../../src/proof/index.js';
import { apiOf } from '../helpers/api.js';
import { expectErrorShape, json, startTestApp, type TestApp, testLogKeys } from '../helpers/app.js';
import {
  type Choice,
  type PublishedSystem,
  postChoice,
  seedPublishedSystem,
} from '../helpers/cookies.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { documentedSubject, exportReceiptId } from '../proof/documented.js';

const origin = 'https://www.bank.example';
const userAgent = 'CookieExportTest/1.0';
const policyUrl = 'https://www.bank.example/cookie-policy';

/** The banner's categories, in the configuration's order: name and description per locale. */
const categories = [
  {
    key: 'necessary',
    en: ['Strictly necessary', 'Sign-in and security'],
    th: ['จำเป็น', 'การเข้าสู่ระบบ'],
  },
  { key: 'analytics', en: ['Analytics', 'Counting visits'], th: ['การวิเคราะห์', ''] },
  {
    key: 'marketing',
    en: ['Marketing', 'Offers on other sites'],
    th: ['การตลาด', 'ข้อเสนอบนเว็บไซต์อื่น'],
  },
] as const;
type Locale = 'en' | 'th';
const named = (locale: Locale) =>
  categories.map((category) => ({
    key: category.key,
    name: category[locale][0],
    description: category[locale][1] as string,
  }));

const banner = (policy: string) => ({
  title: 'Cookies',
  body: 'We use cookies.',
  accept_all: 'Accept all',
  reject_all: 'Reject all',
  preferences: 'Preferences',
  save: 'Save',
  preferences_title: 'Your choices',
  gpc_note: 'Global Privacy Control is on.',
  policy_label: 'Cookie policy',
  policy_url: policy,
  close: 'Close',
});

/** The site's banner: English with a cookie policy link, Thai without; 180 days. */
const content: ConfigurationContent = {
  default_locale: 'en',
  lifetime_days: 180,
  categories: categories.map(({ key, en, th }) => ({
    key,
    required: key === 'necessary',
    texts: { en: { name: en[0], description: en[1] }, th: { name: th[0], description: th[1] } },
  })),
  texts: { en: banner(policyUrl), th: banner('') },
  layout: {
    kind: 'bar',
    position: 'bottom',
    colors: { background: '#ffffff', text: '#111111', accent: '#0055aa' },
  },
};

const methodWords = {
  'accept-all': 'Accept all',
  'reject-all': 'Reject all',
  custom: 'categories saved one by one from the preferences',
  gpc: 'Accept all under Global Privacy Control',
} as const;

/** A cookie receipt as the API answers it, for a visitor not erased. */
interface OpenCookieReceipt {
  leaf: string;
  leaf_index: number;
  tree_size: number;
  checkpoint: string;
  tlog_proof: string;
  opening: { subject_salt: string };
}

/** What an export is made from: the choice posted, its id and time, and its JSON receipt. */
interface Known {
  id: string;
  decidedAt: string;
  choice: Choice & { locale: Locale };
  receipt: OpenCookieReceipt;
}

/** `fields`, each key in our namespace (`clog:`), as the ISO export writes the proof. */
const inOurNamespace = (fields: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(fields).map(([key, value]) => [`clog:${key}`, value]));

const verifier = () => {
  const key = parseVerifierKey(testLogKeys.verifierKey);
  if (!key.ok) throw new Error(key.reason);
  return key.value;
};

describe.each(stores)("a cookie decision's receipt exports on $name", (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let b: SeededTenant;
  let site: PublishedSystem;
  let contentSha256: string;
  let publishedAt: string;
  /** The same context and controller as a decision's exports: one mapping for both kinds. */
  let decisionSide: { context: unknown; controllers: unknown };

  beforeAll(async () => {
    // A long interval: the tests decide when leaves are appended (`?wait=true` runs a pass).
    t = await startTestApp(store, { LOG_INTEGRATE_INTERVAL_MS: '60000' });
    a = await seedTenant(t.db);
    b = await seedTenant(t.db);
    site = await seedPublishedSystem(t.db, a.tenant.id, { name: 'Bank website', content });
    const row = await t.db
      .selectFrom('cookie_configurations')
      .select(['content_sha256', 'published_at'])
      .where('id', '=', site.configurationId)
      .executeTakeFirstOrThrow();
    contentSha256 = row.content_sha256;
    publishedAt = row.published_at ?? '';
    decisionSide = await decisionExports();
  });
  afterAll(async () => {
    await t.close();
  });

  const get = (url: string, headers = a.headers) => t.app.inject({ method: 'GET', url, headers });
  const exportOf = async (format: string, id: string) => {
    const response = await get(`/api/v1/cookie-decisions/${id}/receipt/${format}?wait=true`);
    expect(response.statusCode, response.body).toBe(200);
    return json(response);
  };

  /** Posts `choice`, and waits for its receipt: what its exports are made from. */
  async function record(choice: Known['choice']): Promise<Known> {
    const { decision_id: id, decided_at: decidedAt } = await postChoice(t.app, site, choice, {
      origin,
      userAgent,
    });
    const response = await get(`/api/v1/cookie-decisions/${id}/receipt?wait=true`);
    expect(response.statusCode, response.body).toBe(200);
    return { id, decidedAt, choice, receipt: json(response).data };
  }

  const custom = (): Known['choice'] => ({
    visitorId: randomUUID(),
    method: 'custom',
    categories: { necessary: true, analytics: false, marketing: true },
    locale: 'th',
  });

  /** The ISO/IEC TS 27560 document docs/proof.md maps a cookie decision to, written out. */
  function expectedIso(k: Known, created: string) {
    const receiptId = exportReceiptId(k.id, 'iso-27560', k.receipt.checkpoint);
    const controller = `urn:uuid:${a.tenant.id}`;
    const dpv27560 = 'https://w3id.org/dpv/schema/dpv-27560#';
    const indication = `Choice "${k.choice.method}" on the cookie banner: ${methodWords[k.choice.method]}`;
    return {
      '@context': decisionSide.context,
      '@id': `urn:uuid:${receiptId}`,
      '@type': 'dpv:ConsentReceipt',
      'dct:identifier': receiptId,
      'dpv:hasIdentifier': receiptId,
      'dct:conformsTo': `${dpv27560}receipt`,
      'dct:created': created,
      'dct:publisher': controller,
      'schema:recipient': 'dpv:DataSubject',
      'dpv:hasRecordOfActivity': {
        '@id': `urn:uuid:${k.id}`,
        '@type': 'dpv:ConsentRecord',
        'dct:identifier': k.id,
        'dct:conformsTo': `${dpv27560}record`,
        'dpv:hasDataSubject': { '@type': 'dpv:DataSubject', 'dct:identifier': k.choice.visitorId },
        'dpv:hasDataController': {
          '@id': controller,
          '@type': 'dpv:DataController',
          'dct:identifier': a.tenant.id,
          'schema:name': a.tenant.alias,
        },
        'dpv:hasJurisdiction': 'clog:NotRecorded',
        'dpv:hasLegalBasis': 'dpv:ExpressedConsent',
        'dpv:hasNotice': {
          '@id': `urn:uuid:${site.configurationId}`,
          '@type': 'dpv:ConsentNotice',
          'dct:identifier': site.configurationId,
          'dct:isVersionOf': { 'dct:identifier': site.scope, 'dct:title': 'Bank website' },
          'clog:versionNumber': 1,
          'clog:contentSha256': contentSha256,
          'dct:issued': publishedAt,
          'dct:language': k.choice.locale,
          // Only the English texts link to a cookie policy.
          ...(k.choice.locale === 'en' ? { 'dct:references': { '@id': policyUrl } } : {}),
        },
        'dpv:hasProcess': named(k.choice.locale).map(({ key, name, description }) => ({
          '@type': 'dpv:Process',
          'dpv:hasPurpose': {
            '@type': 'dpv:Purpose',
            'dct:identifier': key,
            'dct:title': name,
            ...(description ? { 'dct:description': description } : {}),
          },
          'dpv:hasPersonalData': 'clog:NotRecorded',
          'dpv:hasStorageCondition': 'clog:NotRecorded',
          'dpv:hasRecipient': controller,
          'dpv:hasConsentStatus': {
            '@type': k.choice.categories[key] ? 'dpv:ConsentGiven' : 'dpv:ConsentRefused',
            'dpv:isIndicatedAtTime': k.decidedAt,
            'dpv:isIndicatedBy': 'dpv:DataSubject',
            'dpv:hasIndicationMethod': indication,
            'dpv:hasDuration': {
              '@type': 'dpv:UntilEventDuration',
              'dct:description':
                "Until the visitor's next choice on Bank website, or 180 days, when the banner asks again",
            },
          },
        })),
        'dpv:hasConsentControl': {
          '@type': 'dpv:WithdrawConsent',
          'dct:description':
            'Make a new choice on the cookie banner of Bank website (its cookie settings); ' +
            'the banner records it through the consent service (isExercisedAt).',
          'dpv:isExercisedAt': `https://consent.test/cookies/v1/${site.scope}/decisions`,
        },
      },
      'clog:proof': { '@type': 'clog:InclusionProof', ...inOurNamespace(expectedProof(k)) },
    };
  }

  /** The proof both exports carry (docs/proof.md, "Receipt exports"), from the JSON receipt. */
  function expectedProof({ receipt }: Known) {
    const { leaf_index: leafIndex, tree_size: treeSize, leaf, checkpoint } = receipt;
    return {
      leafFormat: 'consent-log/cookie/v1',
      origin: `consent.test/consent-log/${a.tenant.id}`,
      leafIndex,
      treeSize,
      leaf,
      checkpoint,
      tlogProof: receipt.tlog_proof,
      verifierKey: testLogKeys.verifierKey,
      subjectSalt: receipt.opening.subject_salt,
    };
  }

  /** The Kantara Consent Receipt v1.1 docs/proof.md maps a cookie decision to, written out. */
  function expectedKantara(k: Known, collectionMethod: string) {
    return {
      version: 'KI-CR-v1.1.0',
      jurisdiction: 'unspecified',
      consentTimestamp: Math.floor(Date.parse(k.decidedAt) / 1000),
      collectionMethod,
      consentReceiptID: exportReceiptId(k.id, 'kantara', k.receipt.checkpoint),
      publicKey: testLogKeys.verifierKey,
      language: k.choice.locale,
      piiPrincipalId: k.choice.visitorId,
      piiControllers: decisionSide.controllers,
      policyUrl: k.choice.locale === 'en' ? policyUrl : 'unspecified',
      services: [
        {
          service: 'Bank website',
          purposes: named(k.choice.locale).map(({ key, name, description }) => ({
            purpose: description ? `${name}: ${description}` : name,
            purposeCategory: [key],
            consentType: 'EXPLICIT',
            piiCategory: ['unspecified'],
            primaryPurpose: key === 'necessary',
            termination:
              'A new choice on the cookie banner of Bank website, or 180 days after this one',
            thirdPartyDisclosure: false,
          })),
        },
      ],
      sensitive: false,
      spiCat: [],
      consentLog: {
        method: k.choice.method,
        categories: k.choice.categories,
        decisionId: k.id,
        decidedAt: k.decidedAt,
        scope: site.scope,
        configurationId: site.configurationId,
        version: 1,
        contentSha256,
        locale: k.choice.locale,
        proof: expectedProof(k),
      },
    };
  }

  /** The proof verifies with the verifier key alone, and its leaf is the choice's, theirs. */
  function expectProofOfChoice(tlogProof: string, subjectSalt: string, k: Known) {
    const verified = verifyTlogProof(tlogProof, [verifier()]);
    if (!verified.ok) throw new Error(verified.reason);
    expect(verified.value.index).toBe(k.receipt.leaf_index);
    expect(verified.value.checkpoint.origin).toBe(`consent.test/consent-log/${a.tenant.id}`);
    const leaf = parseCookieLeaf(Buffer.from(verified.value.leaf).toString('utf8'));
    expect(leaf).toMatchObject({
      recordId: k.id,
      time: k.decidedAt,
      configurationId: site.configurationId,
      version: 1,
      contentSha256,
      method: k.choice.method,
      categories: k.choice.categories,
    });
    expect(leaf?.visitor).toBe(documentedSubject(subjectSalt, k.choice.visitorId));
    // What `verify-receipt` runs on the text saved to a file.
    expect(verifyReceipt(tlogProof, [verifier()], registry.formats)).toMatchObject({
      ok: true,
      value: { kind: 'cookie-decision', leafIndex: k.receipt.leaf_index, opened: false },
    });
  }

  /**
   * What a decision's exports of the same tenant say that a cookie decision's say alike: the
   * JSON-LD context and the Kantara controller, which exports.test.ts holds to docs/proof.md.
   */
  async function decisionExports(): Promise<{ context: unknown; controllers: unknown }> {
    const code = await seedTemplate(t.db, a.tenant.id);
    const version = await publish(t.db, a.tenant.id, code);
    const decided = await apiOf(t.app, a.headers).decide(
      `c-${randomUUID()}`,
      version.consent_version_id,
      'given',
    );
    expect(decided.statusCode, decided.body).toBe(201);
    const url = `/api/v1/decisions/${json(decided).data.decision_id}/receipt`;
    const iso = await get(`${url}/iso-27560?wait=true`);
    const kantara = await get(`${url}/kantara`);
    expect([iso.statusCode, kantara.statusCode]).toEqual([200, 200]);
    return { context: json(iso)['@context'], controllers: json(kantara).piiControllers };
  }

  it.each(['iso-27560', 'kantara'])(
    'before the leaf is appended, the %s export answers 202 with Retry-After: 1',
    async (format) => {
      const { decision_id: id } = await postChoice(t.app, site, custom(), { origin, userAgent });
      const early = await get(`/api/v1/cookie-decisions/${id}/receipt/${format}`);
      expect(early.statusCode, early.body).toBe(202);
      expect(early.headers['retry-after']).toBe('1');
      expect(json(early).data).toEqual({ decision_id: id, status: 'queued' });
    },
  );

  it('for a custom choice in Thai, the ISO 27560 export is one process per category, each granted or refused, with a proof that verifies', async () => {
    const k = await record(custom());
    const response = await get(`/api/v1/cookie-decisions/${k.id}/receipt/iso-27560?wait=true`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/ld\+json/);
    expect(response.headers['cache-control']).toBe('no-store');
    const document = json(response);
    const before = Date.now();
    expect(document).toEqual(expectedIso(k, document['dct:created']));
    expect(Date.parse(document['dct:created'])).toBeLessThanOrEqual(before);

    const consentRecord = document['dpv:hasRecordOfActivity'];
    expect(consentRecord['dpv:hasDataSubject']['dct:identifier']).toBe(k.choice.visitorId);
    expect(
      consentRecord['dpv:hasProcess'].map((process: any) => [
        process['dpv:hasPurpose']['dct:identifier'],
        process['dpv:hasPurpose']['dct:title'],
        process['dpv:hasConsentStatus']['@type'],
      ]),
    ).toEqual([
      ['necessary', 'จำเป็น', 'dpv:ConsentGiven'],
      ['analytics', 'การวิเคราะห์', 'dpv:ConsentRefused'],
      ['marketing', 'การตลาด', 'dpv:ConsentGiven'],
    ]);
    expect(
      consentRecord['dpv:hasProcess'][0]['dpv:hasConsentStatus']['dpv:hasIndicationMethod'],
    ).toBe(
      'Choice "custom" on the cookie banner: categories saved one by one from the preferences',
    );
    expect(consentRecord['dpv:hasNotice']).toMatchObject({
      'dct:identifier': site.configurationId,
      'dct:isVersionOf': { 'dct:identifier': site.scope, 'dct:title': 'Bank website' },
      'clog:versionNumber': 1,
      'dct:language': 'th',
    });
    // The Thai texts link to no cookie policy.
    expect(consentRecord['dpv:hasNotice']).not.toHaveProperty('dct:references');

    const proof = document['clog:proof'];
    expect(proof['clog:leafFormat']).toBe('consent-log/cookie/v1');
    expectProofOfChoice(proof['clog:tlogProof'], proof['clog:subjectSalt'], k);
  });

  it('for the same choice, the Kantara export has one purpose per category, necessary the primary one, and its proof verifies', async () => {
    const k = await record(custom());
    const response = await get(`/api/v1/cookie-decisions/${k.id}/receipt/kantara?wait=true`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-store');
    const document = json(response);
    const collectionMethod =
      'Cookie banner of Bank website, "custom" (categories saved one by one from the ' +
      'preferences): granted necessary, marketing; refused analytics';
    expect(document).toEqual(expectedKantara(k, collectionMethod));
    expect(document.services[0].purposes).toMatchObject([
      { purpose: 'จำเป็น: การเข้าสู่ระบบ', purposeCategory: ['necessary'], primaryPurpose: true },
      { purpose: 'การวิเคราะห์', purposeCategory: ['analytics'], primaryPurpose: false },
      {
        purpose: 'การตลาด: ข้อเสนอบนเว็บไซต์อื่น',
        purposeCategory: ['marketing'],
        primaryPurpose: false,
      },
    ]);
    expect(document).toMatchObject({
      language: 'th',
      piiPrincipalId: k.choice.visitorId,
      policyUrl: 'unspecified',
      consentLog: {
        method: 'custom',
        categories: { necessary: true, analytics: false, marketing: true },
        decisionId: k.id,
      },
    });
    expect(document.consentReceiptID).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-/);
    const { proof } = document.consentLog;
    expect(proof.leafFormat).toBe('consent-log/cookie/v1');
    expectProofOfChoice(proof.tlogProof, proof.subjectSalt, k);
  });

  it.each([
    [
      'accept-all',
      { necessary: true, analytics: true, marketing: true },
      ['dpv:ConsentGiven', 'dpv:ConsentGiven', 'dpv:ConsentGiven'],
      'Cookie banner of Bank website, "accept-all" (Accept all): granted necessary, analytics, marketing; refused none',
    ],
    [
      'reject-all',
      { necessary: true, analytics: false, marketing: false },
      ['dpv:ConsentGiven', 'dpv:ConsentRefused', 'dpv:ConsentRefused'],
      'Cookie banner of Bank website, "reject-all" (Reject all): granted necessary; refused analytics, marketing',
    ],
    [
      'gpc',
      { necessary: true, analytics: true, marketing: false },
      ['dpv:ConsentGiven', 'dpv:ConsentGiven', 'dpv:ConsentRefused'],
      'Cookie banner of Bank website, "gpc" (Accept all under Global Privacy Control): granted necessary, analytics; refused marketing',
    ],
  ] as const)(
    'a %s choice in English: its statuses, its method, and the cookie policy as the notice links it',
    async (method, chosen, statuses, collectionMethod) => {
      const k = await record({
        visitorId: randomUUID(),
        method,
        categories: chosen,
        locale: 'en',
      });
      const iso = await exportOf('iso-27560', k.id);
      expect(iso).toEqual(expectedIso(k, iso['dct:created']));
      const consentRecord = iso['dpv:hasRecordOfActivity'];
      expect(
        consentRecord['dpv:hasProcess'].map(
          (process: any) => process['dpv:hasConsentStatus']['@type'],
        ),
      ).toEqual(statuses);
      expect(consentRecord['dpv:hasNotice']['dct:references']).toEqual({ '@id': policyUrl });
      expect(consentRecord['dpv:hasProcess'][1]['dpv:hasPurpose']).toEqual({
        '@type': 'dpv:Purpose',
        'dct:identifier': 'analytics',
        'dct:title': 'Analytics',
        'dct:description': 'Counting visits',
      });
      const kantara = await exportOf('kantara', k.id);
      expect(kantara).toEqual(expectedKantara(k, collectionMethod));
      expect(kantara).toMatchObject({ language: 'en', policyUrl });
    },
  );

  it('the receipt ids are the documented UUID v5 of the cookie decision, format and checkpoint: the same twice, another under a later checkpoint', async () => {
    const k = await record(custom());
    const iso = await exportOf('iso-27560', k.id);
    const kantara = await exportOf('kantara', k.id);
    const isoId = exportReceiptId(k.id, 'iso-27560', k.receipt.checkpoint);
    expect(iso['dpv:hasIdentifier']).toBe(isoId);
    expect(kantara.consentReceiptID).toBe(exportReceiptId(k.id, 'kantara', k.receipt.checkpoint));
    expect(kantara.consentReceiptID).not.toBe(isoId);
    expect((await exportOf('iso-27560', k.id))['dpv:hasIdentifier']).toBe(isoId);
    expect((await exportOf('kantara', k.id)).consentReceiptID).toBe(kantara.consentReceiptID);

    // Another choice appended: a later checkpoint, a new receipt of the same decision.
    await record(custom());
    const later = await exportOf('iso-27560', k.id);
    const checkpoint = later['clog:proof']['clog:checkpoint'];
    expect(checkpoint).not.toBe(k.receipt.checkpoint);
    expect(later['dpv:hasIdentifier']).toBe(exportReceiptId(k.id, 'iso-27560', checkpoint));
    expect(later['dpv:hasIdentifier']).not.toBe(isoId);
  });

  it.each(['iso-27560', 'kantara'])(
    "the %s export: another tenant's cookie decision 404 1004, an unknown one 404, a malformed id 400 1001, no key 401, a decision's id 404",
    async (format) => {
      const { id } = await record(custom());
      const other = await get(`/api/v1/cookie-decisions/${id}/receipt/${format}`, b.headers);
      expect(other.statusCode).toBe(404);
      expect(expectErrorShape(other)).toMatchObject({
        code: '1004',
        message: 'Cookie decision not found.',
      });
      const unknown = await get(
        `/api/v1/cookie-decisions/0190e8a0-0000-7000-8000-000000000000/receipt/${format}`,
      );
      expect(unknown.statusCode).toBe(404);
      expect(expectErrorShape(unknown).code).toBe('1004');
      const malformed = await get(`/api/v1/cookie-decisions/not-a-uuid/receipt/${format}`);
      expect(malformed.statusCode).toBe(400);
      expect(expectErrorShape(malformed).code).toBe('1001');
      const noKey = await t.app.inject({
        method: 'GET',
        url: `/api/v1/cookie-decisions/${id}/receipt/${format}`,
      });
      expect(noKey.statusCode).toBe(401);
      expect(expectErrorShape(noKey).code).toBe('1002');
      // Each id answers at its own kind's exports only.
      expect((await get(`/api/v1/decisions/${id}/receipt/${format}`)).statusCode).toBe(404);
    },
  );

  it('once the visitor was erased, both exports are 404 1004 saying so, and the receipt still answers', async () => {
    const k = await record(custom());
    await eraseCookieVisitor(t.db, t.vault, registry, a.tenant.id, k.choice.visitorId, {
      actorKind: 'operator',
      actor: 'command line',
      ip: 'local',
      userAgent: null,
    });
    for (const format of ['iso-27560', 'kantara']) {
      const gone = await get(`/api/v1/cookie-decisions/${k.id}/receipt/${format}?wait=true`);
      expect(gone.statusCode, gone.body).toBe(404);
      expect(expectErrorShape(gone)).toMatchObject({
        code: '1004',
        message:
          "This cookie decision's visitor was erased: only its receipt remains, without whose it was.",
      });
    }
    const receipt = await get(`/api/v1/cookie-decisions/${k.id}/receipt`);
    expect(receipt.statusCode).toBe(200);
    expect(json(receipt).data.opening).toBeNull();
  });

  it('the OpenAPI document describes both exports under the log tag, with the errors of the cookie receipt', async () => {
    const doc = json(await t.app.inject({ method: 'GET', url: '/api/docs/json' }));
    const receipt = '/api/v1/cookie-decisions/{decision_id}/receipt';
    const iso = doc.paths[`${receipt}/iso-27560`].get;
    const kantara = doc.paths[`${receipt}/kantara`].get;
    expect(iso.operationId).toBe('getCookieDecisionReceiptIso27560');
    expect(kantara.operationId).toBe('getCookieDecisionReceiptKantara');
    const receiptResponses = Object.keys(doc.paths[receipt].get.responses).sort();
    for (const operation of [iso, kantara]) {
      expect(operation.tags).toEqual(['log']);
      expect(Object.keys(operation.responses).sort()).toEqual(receiptResponses);
    }
    const isoSchema = iso.responses['200'].content['application/ld+json'].schema;
    expect(isoSchema.properties['dpv:hasRecordOfActivity'].properties['dpv:hasProcess'].type).toBe(
      'array',
    );
    const kantaraSchema = kantara.responses['200'].content['application/json'].schema;
    expect(Object.keys(kantaraSchema.properties.consentLog.properties)).toEqual([
      'method',
      'categories',
      'decisionId',
      'decidedAt',
      'scope',
      'configurationId',
      'version',
      'contentSha256',
      'locale',
      'proof',
    ]);
  });
});

describe('cookie receipt export mapping', () => {
  const checkpoint =
    'consent.test/consent-log/tenant-1\n7\nBBBB\n\n— consent.test/consent-log xyz\n';
  const source = (categories: Record<string, boolean>): CookieExportSource => ({
    receipt: {
      cookie_decision: {
        decision_id: '0190e8a0-0000-7000-8000-0000000000c1',
        system_id: '0190e8a0-0000-7000-8000-0000000000d1',
        configuration_id: '0190e8a0-0000-7000-8000-0000000000e1',
        configuration_version: 2,
        content_sha256: 'cd'.repeat(32),
        method: 'custom',
        categories,
        decided_at: '2026-03-01T08:00:00.250Z',
        visitor_id: '6f1c2b9e-0000-4000-8000-000000000001',
      },
      leaf: 'consent-log/cookie/v1\n',
      leaf_index: 6,
      tree_size: 7,
      inclusion_proof: [],
      checkpoint,
      tlog_proof: `c2sp.org/tlog-proof@v1\nindex 6\n\n${checkpoint}`,
      verifier_key: 'consent.test/consent-log+01234567+AAAA',
      opening: {
        visitor_id: '6f1c2b9e-0000-4000-8000-000000000001',
        subject_salt: 'c2FsdA==',
        evidence_salt: 'ZXZpZGVuY2U=',
        ip: '192.0.2.0',
        user_agent: 'Browser/1.0',
        origin: 'https://www.bank.example',
        locale: 'en',
      },
    },
    controller: { id: '0190e8a0-0000-7000-8000-0000000000cc', alias: 'bank' },
    system: { scope: 'cs_0123456789abcdef0123', name: 'Bank website' },
    configuration: { published_at: '2026-02-01T00:00:00.000Z', content },
    publicBaseUrl: 'https://consent.example',
    issuedAt: '2026-03-02T00:00:00.000Z',
  });
  const chosen = { necessary: true, analytics: false, marketing: true };

  it('the receipt ids are the documented UUID v5 of the cookie decision, format and checkpoint', () => {
    // uuid5(cookie decision id, "iso-27560\n" + checkpoint) and "kantara\n" + checkpoint,
    // computed apart (Python's uuid.uuid5).
    const iso = '71cd0af7-ffa7-5552-8431-0a0b9bdc55f9';
    const kantara = '9da2b906-2296-560e-ad51-e86f776ca2c9';
    expect(cookieIso27560Receipt(source(chosen))).toMatchObject({
      '@id': `urn:uuid:${iso}`,
      'dct:identifier': iso,
      'dpv:hasIdentifier': iso,
    });
    expect(cookieKantaraReceipt(source(chosen)).consentReceiptID).toBe(kantara);
    const later = source(chosen);
    later.receipt.checkpoint = checkpoint.replace('\n7\n', '\n8\n');
    expect(cookieIso27560Receipt(later)['dpv:hasIdentifier']).toBe(
      '2a8e83ab-d66d-5deb-8b69-a7e6a8b20e36',
    );
  });

  it('leaves out the evidence: the address, the user agent, the origin and their salt', () => {
    for (const document of [
      cookieIso27560Receipt(source(chosen)),
      cookieKantaraReceipt(source(chosen)),
    ]) {
      const text = JSON.stringify(document);
      for (const evidence of [
        '192.0.2.0',
        'Browser/1.0',
        'https://www.bank.example"',
        'ZXZpZGVuY2U=',
      ]) {
        expect(text).not.toContain(evidence);
      }
    }
  });

  it('refuses a choice that lacks a category of its configuration: a store that no longer matches its log', () => {
    expect(() => cookieKantaraReceipt(source({ necessary: true, analytics: false }))).toThrow(
      'Cookie decision 0190e8a0-0000-7000-8000-0000000000c1 has no marketing category',
    );
  });
});
