import { ConsentApiError, type ConsentClient, createConsentClient } from '@consent-service/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postChoice, seedPublishedSystem } from '../../../test/helpers/cookies.js';
import { publish, seedTemplate, unique } from '../../../test/helpers/seed.js';
import { storeAgnostic } from '../../../test/helpers/stores.js';
import { decisionIds, type ServedTenant, serveTenant } from './helpers/server.js';

/** Catches what `call` throws, to look at it; fails when it throws nothing. */
async function thrown(call: Promise<unknown>): Promise<ConsentApiError> {
  const error = await call.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ConsentApiError);
  return error as ConsentApiError;
}

describe.each(storeAgnostic)('the client against the service on $name', (store) => {
  let served: ServedTenant;
  let client: ConsentClient;

  beforeAll(async () => {
    served = await serveTenant(store);
    client = createConsentClient({ baseUrl: served.baseUrl, apiKey: served.apiKey });
  });
  afterAll(async () => {
    await served?.close();
  });

  it('health() answers the health check body', async () => {
    expect(await client.health()).toEqual({ status: 'ok', success: true });
  });

  it('sends every call through the fetch it is given, with the key header', async () => {
    const sent: (string | null)[] = [];
    const spied = createConsentClient({
      baseUrl: served.baseUrl,
      apiKey: served.apiKey,
      fetch: (request) => {
        sent.push(request.headers.get('x-system-api-key'));
        return fetch(request);
      },
    });
    expect(await spied.latest(served.code)).toEqual(served.version);
    expect(sent).toEqual([served.apiKey]);
  });

  it('latest() answers V, the published version', async () => {
    expect(await client.latest(served.code)).toEqual(served.version);
  });

  it('pending() for a customer never seen answers accepted false and the latest version', async () => {
    expect(await client.pending(unique('c'), served.code)).toEqual({
      accepted: false,
      consent_version: served.version,
      decision: null,
      decided_at: null,
    });
  });

  it('decide() records given, and pending() then answers it', async () => {
    const customer = unique('c');
    const body = {
      consent_version_id: served.version.consent_version_id,
      decision: 'given' as const,
    };
    const decision = await client.decide(customer, body);
    expect(decision).toEqual({
      decision_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      customer_id: customer,
      template_code: served.code,
      consent_version_id: served.version.consent_version_id,
      version: 1,
      decision: 'given',
      decided_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(await client.pending(customer, served.code)).toEqual({
      accepted: true,
      consent_version: served.version,
      decision: 'given',
      decided_at: decision.decided_at,
    });
    expect(await decisionIds(served, customer)).toEqual([decision.decision_id]);
  });

  it('decide() records reject, then given and withdraw, each a decision of its own', async () => {
    const customer = unique('c');
    const id = served.version.consent_version_id;
    const answers = [];
    for (const decision of ['reject', 'given', 'withdraw'] as const) {
      answers.push(await client.decide(customer, { consent_version_id: id, decision }));
    }
    expect(answers.map((answer) => answer.decision)).toEqual(['reject', 'given', 'withdraw']);
    expect(new Set(answers.map((answer) => answer.decision_id)).size).toBe(3);
    expect((await client.pending(customer, served.code)).decision).toBe('withdraw');
  });

  it('decide() with a key of the caller answers a second call with the first decision', async () => {
    const customer = unique('c');
    const body = {
      consent_version_id: served.version.consent_version_id,
      decision: 'given' as const,
    };
    const idempotencyKey = `job-${unique('k')}`;
    const first = await client.decide(customer, body, { idempotencyKey });
    const second = await client.decide(customer, body, { idempotencyKey });
    expect(second).toEqual(first);
    expect(await decisionIds(served, customer)).toEqual([first.decision_id]);
  });

  it('withdraw with nothing to withdraw throws ConsentApiError 409 1005', async () => {
    const error = await thrown(
      client.decide(unique('c'), {
        consent_version_id: served.version.consent_version_id,
        decision: 'withdraw',
      }),
    );
    expect(error).toMatchObject({ status: 409, code: '1005', message: 'Nothing to withdraw.' });
    expect(error.requestId).toEqual(expect.any(String));
  });

  it('re-consent on a version that does not allow it throws 409 1005', async () => {
    const code = await seedTemplate(served.t.db, served.tenant.tenant.id);
    const version = await publish(served.t.db, served.tenant.tenant.id, code, {
      allow_reconsent: false,
    });
    const customer = unique('c');
    const id = version.consent_version_id;
    await client.decide(customer, { consent_version_id: id, decision: 'given' });
    const error = await thrown(
      client.decide(customer, { consent_version_id: id, decision: 'reject' }),
    );
    expect(error).toMatchObject({
      status: 409,
      code: '1005',
      message: 'Re-consent is not allowed for this version.',
    });
  });

  it('an unknown API key throws 401 1002', async () => {
    const stranger = createConsentClient({
      baseUrl: served.baseUrl,
      apiKey: 'csk_000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    });
    const error = await thrown(stranger.latest(served.code));
    expect(error).toMatchObject({ status: 401, code: '1002', message: 'Unauthorized.' });
  });

  it('an unknown template throws 404 1004', async () => {
    const error = await thrown(client.latest(unique('missing')));
    expect(error).toMatchObject({ status: 404, code: '1004', message: 'Template not found.' });
  });

  it('a malformed customer id throws 400 1001 with the details', async () => {
    const error = await thrown(client.pending('not allowed!', served.code));
    expect(error).toMatchObject({ status: 400, code: '1001' });
    expect(error.details).toContainEqual({
      field: 'params.customer_id',
      issue: expect.any(String),
    });
  });

  it('receipt(), logKey(), checkpoint() and consistency() answer the decision log', async () => {
    const decision = await client.decide(unique('c'), {
      consent_version_id: served.version.consent_version_id,
      decision: 'given',
    });
    const receipt = await client.receipt(decision.decision_id, { wait: true });
    if (!('decision' in receipt)) throw new Error('the receipt is still queued');
    expect(receipt.decision).toEqual(decision);
    const key = await client.logKey();
    expect(receipt.verifier_key).toBe(key.verifier_key);
    const checkpoint = await client.checkpoint();
    expect(checkpoint.size).toBeGreaterThanOrEqual(receipt.tree_size);
    const proof = await client.consistency(receipt.tree_size, checkpoint.size);
    expect(proof).toMatchObject({ from: receipt.tree_size, to: checkpoint.size });
  });

  it('evidencePack() answers the ZIP and its file name; an unknown customer throws 404 1004', async () => {
    const customer = unique('c');
    await client.decide(customer, {
      consent_version_id: served.version.consent_version_id,
      decision: 'given',
    });
    const pack = await client.evidencePack(customer);
    expect(pack.fileName).toMatch(/^evidence-\d{8}T\d{6}Z\.zip$/);
    // A ZIP's local file header.
    expect([...pack.bytes.subarray(0, 4)]).toEqual([0x50, 0x4b, 0x03, 0x04]);
    expect(pack.response.status).toBe(200);
    const error = await thrown(client.evidencePack(unique('nobody')));
    expect(error).toMatchObject({ status: 404, code: '1004', message: 'Customer not found.' });
  });

  it("preferenceLink() answers a link to the tenant's page and its expiry; a bad lifetime throws 400 1001", async () => {
    const before = Date.now();
    const link = await client.preferenceLink(unique('c'), { locale: 'th', ttl_seconds: 600 });
    const after = Date.now();
    expect(link.url).toMatch(
      new RegExp(`/preferences/${served.tenant.tenant.alias}/open\\?token=[A-Za-z0-9._-]+$`),
    );
    // 600 s from a moment between the call's start and its answer, in whole seconds.
    expect(Date.parse(link.expires_at)).toBeGreaterThan(before + 600_000 - 1_000);
    expect(Date.parse(link.expires_at)).toBeLessThanOrEqual(after + 600_000);
    expect(link.response.status).toBe(201);
    expect(await client.preferenceLink(unique('c'))).toHaveProperty('url');
    const error = await thrown(client.preferenceLink(unique('c'), { ttl_seconds: 10 }));
    expect(error).toMatchObject({ status: 400, code: '1001' });
  });

  it("setAllowedOrigins() sets the preference centre's origins and allowedOrigins() reads them back; one that is no origin throws 400 1001", async () => {
    const set = await client.setAllowedOrigins(['https://shop.example/', 'https://app.example']);
    expect(set).toEqual({ allowed_origins: ['https://shop.example', 'https://app.example'] });
    expect(set.response.status).toBe(200);
    expect(await client.allowedOrigins()).toEqual(set);
    const error = await thrown(client.setAllowedOrigins(['shop.example']));
    expect(error).toMatchObject({ status: 400, code: '1001' });
    expect(error.details?.map((d) => d.field)).toEqual(['body.allowed_origins']);
    expect(await client.allowedOrigins()).toEqual(set);
    expect(await client.setAllowedOrigins([])).toEqual({ allowed_origins: [] });
  });

  it("cookieReceipt() answers a website visitor's choice's receipt; a decision's id throws 404 1004", async () => {
    const site = await seedPublishedSystem(served.t.db, served.tenant.tenant.id, {
      categories: ['analytics'],
    });
    const visitorId = crypto.randomUUID();
    const chosen = { necessary: true, analytics: false };
    const { decision_id: id, decided_at: decidedAt } = await postChoice(
      served.t.app,
      site,
      { visitorId, method: 'reject-all', categories: chosen, locale: 'en' },
      { origin: 'https://www.bank.example', userAgent: 'ClientTest/1.0' },
    );
    const receipt = await client.cookieReceipt(id, { wait: true });
    if (!('cookie_decision' in receipt)) throw new Error('the receipt is still queued');
    expect(receipt.cookie_decision).toMatchObject({
      decision_id: id,
      configuration_id: site.configurationId,
      configuration_version: site.version,
      method: 'reject-all',
      categories: chosen,
      decided_at: decidedAt,
      visitor_id: visitorId,
    });
    expect(receipt.opening).toMatchObject({ visitor_id: visitorId, locale: 'en' });
    expect(receipt.verifier_key).toBe((await client.logKey()).verifier_key);
    expect(receipt.response.status).toBe(200);
    // A decision's id is no cookie decision's.
    const decision = await client.decide(unique('c'), {
      consent_version_id: served.version.consent_version_id,
      decision: 'given',
    });
    const error = await thrown(client.cookieReceipt(decision.decision_id));
    expect(error).toMatchObject({
      status: 404,
      code: '1004',
      message: 'Cookie decision not found.',
    });
  });
});
