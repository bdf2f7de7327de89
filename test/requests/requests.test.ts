/**
 * Data-subject requests through the API, on both stores (PDPA sections 30-36; docs/requests.md):
 * a request opened with its 30-day clock in the tenant's time zone, its steps in the order the
 * rules allow, refusals with a PDPA ground and reason, each step a record with a receipt that
 * verifies offline and a webhook event, the log's audit clean, another tenant's view, erasure.
 */

import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { auditLog } from '../../src/decision-log/audit.js';
import { eraseCustomer } from '../../src/erasure/service.js';
import { parseVerifierKey, verifyEvidencePack, verifyReceipt } from '../../src/proof/index.js';
import { clockOf, dueOn } from '../../src/requests/index.js';
import { createEndpoint } from '../../src/webhooks/service.js';
import { expectErrorShape, json, startTestApp, type TestApp, testLogKeys } from '../helpers/app.js';
import { dayAt, daysLeftSeen } from '../helpers/days.js';
import { pollUntil } from '../helpers/process.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { storeBytes } from '../helpers/store-scan.js';
import { stores } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';
import {
  byCli,
  eventually,
  fastWebhooks,
  startReceiver,
  verified,
} from '../helpers/webhook-receiver.js';

const ip = '203.0.113.77';
const userAgent = 'RightsDesk/2.0 (marker-91c3e2)';
const actor = { actorKind: 'operator', actor: 'test', ip: 'local', userAgent: null } as const;

/**
 * The due date as the PDPA's 30 days make it, computed here with Bangkok's fixed UTC+7 (Thailand
 * keeps no summer time) and plain date arithmetic: not by the service's calendar.
 */
function bangkokDuePlus(receivedAt: string, days: number): string {
  const local = new Date(Date.parse(receivedAt) + 7 * 3_600_000);
  const day = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate());
  return new Date(day + days * 86_400_000).toISOString().slice(0, 10);
}

describe('the 30-day clock, against fixed dates', () => {
  it('counts from the day of receipt in the zone, across a month end', () => {
    // 00:30 on 1 February in Bangkok is still 31 January in UTC.
    expect(dueOn('2026-01-31T17:30:00.000Z', 'Asia/Bangkok')).toBe('2026-03-03');
    expect(dueOn('2026-01-31T17:30:00.000Z', 'UTC')).toBe('2026-03-02');
    // A leap year's February.
    expect(dueOn('2028-02-10T03:00:00.000Z', 'Asia/Bangkok')).toBe('2028-03-11');
  });

  it("gives the days left in the zone's today, negative and overdue past the due date, none once closed", () => {
    const open = { status: 'in_progress', due_on: '2026-03-03' };
    expect(clockOf(open, 'Asia/Bangkok', '2026-03-02T16:59:59.000Z')).toEqual({
      days_left: 1,
      overdue: false,
    });
    expect(clockOf(open, 'Asia/Bangkok', '2026-03-02T17:00:00.000Z')).toEqual({
      days_left: 0,
      overdue: false,
    });
    expect(clockOf(open, 'Asia/Bangkok', '2026-03-04T01:00:00.000Z')).toEqual({
      days_left: -1,
      overdue: true,
    });
    expect(
      clockOf({ ...open, status: 'done' }, 'Asia/Bangkok', '2026-04-01T00:00:00.000Z'),
    ).toEqual({ days_left: null, overdue: false });
  });
});

describe.each(stores)('data-subject requests on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let b: SeededTenant;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let secret: string;

  beforeAll(async () => {
    t = await startTestApp(store, fastWebhooks);
    receiver = await startReceiver();
    a = await seedTenant(t.db);
    b = await seedTenant(t.db);
    await t.db
      .updateTable('tenants')
      .set({ time_zone: 'Asia/Bangkok' })
      .where('id', '=', a.tenant.id)
      .execute();
    ({ secret } = await createEndpoint(
      t.db,
      t.vault,
      t.config.webhooks,
      registry,
      byCli(a.tenant.id),
      { url: receiver.url, events: ['request.received', 'request.refused'] },
    ));
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });

  const send = (method: 'GET' | 'POST', url: string, payload?: unknown, tenant: SeededTenant = a) =>
    t.app.inject({
      method,
      url,
      headers: {
        ...tenant.headers,
        'user-agent': userAgent,
        ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
      remoteAddress: ip,
    });
  const open = async (customer: string, body: unknown) => {
    const response = await send('POST', `/api/v1/customers/${customer}/requests`, body);
    expect(response.statusCode, response.body).toBe(201);
    return json(response).data;
  };
  const step = (id: string, body: unknown, tenant: SeededTenant = a) =>
    send('POST', `/api/v1/requests/${id}/steps`, body, tenant);
  const stepOk = async (id: string, body: unknown) => {
    const response = await step(id, body);
    expect(response.statusCode, response.body).toBe(201);
    return json(response).data;
  };
  /** A step's receipt, asked again while its leaf waits for the log (a busy machine's pass). */
  const receipt = async (stepId: string) => {
    const response = await pollUntil(
      async () => {
        const r = await send('GET', `/api/v1/request-steps/${stepId}/receipt?wait=true`);
        return r.statusCode === 202 ? undefined : r;
      },
      { timeoutMs: budget(30_000) },
    );
    expect(response?.statusCode, response?.body).toBe(200);
    return json(response as NonNullable<typeof response>);
  };
  const verifier = () => {
    const key = parseVerifierKey(testLogKeys.verifierKey);
    if (!key.ok) throw new Error(key.reason);
    return key.value;
  };

  it('opens a request received now, due 30 days after the day it came in, in Bangkok', async () => {
    const before = dayAt(7);
    const request = await open('alice', {
      kind: 'access',
      details: 'A copy of everything you hold on me, please.',
    });
    expect(request).toEqual({
      request_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      customer_id: 'alice',
      kind: 'access',
      status: 'received',
      via: 'api',
      received_at: expect.any(String),
      due_on: bangkokDuePlus(request.received_at, 30),
      days_left: expect.toBeOneOf(daysLeftSeen(bangkokDuePlus(request.received_at, 30), before, 7)),
      overdue: false,
      extended: false,
      assignee_id: null,
      ground: null,
      reason: null,
      closed_at: null,
      details: 'A copy of everything you hold on me, please.',
      steps: [
        {
          step_id: expect.any(String),
          step: 'received',
          made_at: request.received_at,
          due_on: request.due_on,
          ground: null,
          reason: null,
          actor: { api_key_id: a.apiKey.id, user_id: null },
        },
      ],
      notes: [],
    });
    const listed = json(await send('GET', '/api/v1/customers/alice/requests')).data;
    expect(listed.map((r: { request_id: string }) => r.request_id)).toEqual([request.request_id]);
    expect(listed[0]).not.toHaveProperty('steps');
  });

  it('takes its steps in order: identity checked, in progress, extended once by 30 days, done', async () => {
    const before = dayAt(7);
    const request = await open('bob', { kind: 'portability' });
    const refusedEarly = await step(request.request_id, { step: 'done' });
    expect(refusedEarly.statusCode).toBe(409);
    expect(expectErrorShape(refusedEarly)).toMatchObject({
      code: '1005',
      message: expect.stringContaining('identity must be checked'),
    });
    await stepOk(request.request_id, { step: 'identity_checked' });
    const again = await step(request.request_id, { step: 'identity_checked' });
    expect(again.statusCode).toBe(409);
    await stepOk(request.request_id, { step: 'in_progress' });
    const extended = await stepOk(request.request_id, {
      step: 'extended',
      reason: 'The data spans three systems, one archived.',
    });
    expect(extended).toMatchObject({
      status: 'extended',
      extended: true,
      due_on: bangkokDuePlus(request.received_at, 60),
      days_left: expect.toBeOneOf(daysLeftSeen(bangkokDuePlus(request.received_at, 60), before, 7)),
      reason: 'The data spans three systems, one archived.',
    });
    const twice = await step(request.request_id, { step: 'extended', reason: 'More.' });
    expect(twice.statusCode).toBe(409);
    expect(expectErrorShape(twice).message).toContain('extended once');
    const done = await stepOk(request.request_id, { step: 'done' });
    expect(done).toMatchObject({ status: 'done', days_left: null, overdue: false });
    expect(done.closed_at).toBe(done.steps.at(-1).made_at);
    expect(done.steps.map((s: { step: string }) => s.step)).toEqual([
      'received',
      'identity_checked',
      'in_progress',
      'extended',
      'done',
    ]);
    const closed = await step(request.request_id, { step: 'in_progress' });
    expect(closed.statusCode).toBe(409);
    expect(expectErrorShape(closed).message).toContain('closed request');
  });

  it('refuses with a PDPA ground and a reason; a step without what it needs is 400 1001', async () => {
    const request = await open('carol', { kind: 'erasure' });
    for (const [body, field] of [
      [{ step: 'refused', reason: 'Loan still running.' }, 'ground'],
      [{ step: 'refused', ground: 'legal_obligation' }, 'reason'],
      [{ step: 'extended' }, 'reason'],
      [{ step: 'in_progress', ground: 'legal_claims' }, 'ground'],
      [{ step: 'identity_checked', reason: 'x' }, 'reason'],
    ] as const) {
      const response = await step(request.request_id, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(expectErrorShape(response)).toMatchObject({
        code: '1001',
        details: [expect.objectContaining({ field })],
      });
    }
    for (const body of [
      { step: 'refused', ground: 'because', reason: 'x' },
      { step: 'archived' },
      { step: 'done', extra: 1 },
    ]) {
      expect((await step(request.request_id, body)).statusCode, JSON.stringify(body)).toBe(400);
    }
    expect(
      (await send('POST', '/api/v1/customers/carol/requests', { kind: 'deletion' })).statusCode,
    ).toBe(400);
    const refused = await stepOk(request.request_id, {
      step: 'refused',
      ground: 'legal_obligation',
      reason: 'Records of an open loan are kept for ten years under the Bank of Thailand rules.',
    });
    expect(refused).toMatchObject({
      status: 'refused',
      ground: 'legal_obligation',
      reason: 'Records of an open loan are kept for ten years under the Bank of Thailand rules.',
      closed_at: expect.any(String),
    });
  });

  it('each step has a receipt that verifies offline; a changed reason hash or step fails', async () => {
    const request = await open('dan', { kind: 'objection' });
    const refused = await stepOk(request.request_id, {
      step: 'refused',
      ground: 'compelling_legitimate_grounds',
      reason: 'Fraud monitoring of the account continues.',
    });
    const last = refused.steps.at(-1);
    const body = await receipt(last.step_id);
    expect(body.data.request_step).toEqual({
      step_id: last.step_id,
      request_id: request.request_id,
      kind: 'objection',
      step: 'refused',
      made_at: last.made_at,
      due_on: request.due_on,
      ground: 'compelling_legitimate_grounds',
      reason: 'Fraud monitoring of the account continues.',
      // printf '%s' 'Fraud monitoring of the account continues.' | sha256sum
      reason_sha256: '0fb3bedaa9901936fcd994b6e5203281d3dbc848e92d7182c84766bba61491ec',
      customer_id: 'dan',
    });
    expect(body.data.leaf).toContain('consent-log/request/v1\n');
    expect(body.data.opening).toMatchObject({
      customer_id: 'dan',
      ip,
      user_agent: userAgent,
      api_key_id: a.apiKey.id,
    });
    expect(verifyReceipt(body, [verifier()], registry.formats)).toMatchObject({
      ok: true,
      value: { opened: true },
    });
    for (const [field, value] of [
      ['step', 'done'],
      ['reason_sha256', 'a'.repeat(64)],
      ['ground', 'legal_claims'],
      ['customer_id', 'someone-else'],
    ] as const) {
      const altered = structuredClone(body);
      altered.data.request_step[field] = value;
      if (field === 'customer_id') altered.data.opening.customer_id = value;
      expect(verifyReceipt(altered, [verifier()], registry.formats), field).toMatchObject({
        ok: false,
      });
    }
  });

  it('sends request.received and request.refused to an endpoint that takes them, with the customer', async () => {
    const request = await open('erin', { kind: 'restriction' });
    const refused = await stepOk(request.request_id, {
      step: 'refused',
      ground: 'identity_not_verified',
      reason: 'The signature did not match the one on file.',
    });
    const payloads = () =>
      receiver.received.map((got) => verified(secret, got) as { type: string; data: any });
    await eventually(
      () => payloads().filter((p) => p.data.request_id === request.request_id).length === 2,
    );
    const events = payloads().filter((p) => p.data.request_id === request.request_id);
    expect(events.map((e) => e.type)).toEqual(['request.received', 'request.refused']);
    expect(events[1]?.data).toEqual({
      step_id: refused.steps.at(-1).step_id,
      customer_id: 'erin',
      request_id: request.request_id,
      kind: 'restriction',
      step: 'refused',
      status: 'refused',
      received_at: request.received_at,
      due_on: request.due_on,
      ground: 'identity_not_verified',
      reason: 'The signature did not match the one on file.',
      made_at: refused.closed_at,
      actor: { api_key_id: a.apiKey.id, user_id: null },
      log_index: expect.any(Number),
    });
  });

  it("the customer's evidence pack carries each step's receipt, and verifies offline", async () => {
    const request = await open('hal', { kind: 'access' });
    const checked = await stepOk(request.request_id, { step: 'identity_checked' });
    for (const s of checked.steps) await receipt(s.step_id);
    const response = await send('GET', '/api/v1/customers/hal/evidence');
    expect(response.statusCode, response.body).toBe(200);
    const files = unzipSync(response.rawPayload);
    const steps = Object.keys(files).filter((path) => path.startsWith('records/request-steps/'));
    expect(steps).toHaveLength(2);
    for (const s of checked.steps) {
      expect(
        steps.some((path) => path.includes(s.step_id)),
        s.step_id,
      ).toBe(true);
    }
    expect(
      verifyEvidencePack(new Map(Object.entries(files)), [verifier()], registry.formats),
    ).toMatchObject({ valid: true });
  });

  it('an access request done gives a single-use link to the pack and the export, JSON and CSV', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const version = (await publish(t.db, a.tenant.id, code)).consent_version_id;
    const decided = await send('POST', '/api/v1/customers/kim/consents/decisions', {
      consent_version_id: version,
      decision: 'given',
    });
    expect(decided.statusCode, decided.body).toBe(201);
    const decision = json(decided).data;
    const request = await open('kim', { kind: 'access' });
    await stepOk(request.request_id, { step: 'identity_checked' });
    const done = await stepOk(request.request_id, { step: 'done' });
    expect(done.delivery).toEqual({
      url: expect.stringMatching(
        /^https:\/\/consent\.test\/requests\/deliveries\/[A-Za-z0-9_-]{43}$/,
      ),
      expires_at: new Date(Date.parse(done.closed_at) + 7 * 86_400_000).toISOString(),
    });
    // The request read again never shows the link: it was shown once.
    const again = json(await send('GET', `/api/v1/requests/${request.request_id}`)).data;
    expect(again).not.toHaveProperty('delivery');
    const path = new URL(done.delivery.url).pathname;
    const download = await t.app.inject({ method: 'GET', url: path });
    expect(download.statusCode, download.body).toBe(200);
    expect(download.headers['content-type']).toBe('application/zip');
    expect(download.headers['cache-control']).toBe('no-store');
    const files = unzipSync(download.rawPayload);
    const names = Object.keys(files).sort();
    expect(names).toEqual([
      expect.stringMatching(/^evidence-\d{8}T\d{6}Z\.zip$/),
      'export.csv',
      'export.json',
    ]);
    const pack = unzipSync(files[names[0] as string] as Uint8Array);
    expect(
      verifyEvidencePack(new Map(Object.entries(pack)), [verifier()], registry.formats),
    ).toMatchObject({
      valid: true,
    });
    const exported = JSON.parse(new TextDecoder().decode(files['export.json']));
    expect(exported.customer_id).toBe('kim');
    expect(exported.history).toEqual([
      expect.objectContaining({
        decision_id: decision.decision_id,
        decision: 'given',
        template_code: code,
      }),
    ]);
    expect(exported.requests.map((r: { request_id: string }) => r.request_id)).toEqual([
      request.request_id,
    ]);
    const csv = new TextDecoder().decode(files['export.csv']).split('\r\n');
    expect(csv[0]).toBe(
      'decided_at,decision_id,template_code,version,tag,consent_version_id,decision,locale,content_sha256',
    );
    expect(csv[1]).toContain(`,${decision.decision_id},${code},`);
    // Single use: the second download finds nothing, nor does a made-up token.
    const second = await t.app.inject({ method: 'GET', url: path });
    expect(second.statusCode).toBe(404);
    expect(expectErrorShape(second)).toMatchObject({ code: '1004' });
    const made = await t.app.inject({
      method: 'GET',
      url: `/requests/deliveries/${'A'.repeat(43)}`,
    });
    expect(made.statusCode).toBe(404);
    const stored = await t.db.selectFrom('request_deliveries').select('token_hash').execute();
    expect(stored.map((d) => d.token_hash)).not.toContain(path.split('/').pop());
  });

  it('a withdrawal request done withdraws every consent in force, each a decision of its own', async () => {
    const first = await seedTemplate(t.db, a.tenant.id);
    const second = await seedTemplate(t.db, a.tenant.id);
    const third = await seedTemplate(t.db, a.tenant.id);
    const decideOn = async (code: string, decision: string) => {
      const version = (await publish(t.db, a.tenant.id, code)).consent_version_id;
      const response = await send('POST', '/api/v1/customers/lea/consents/decisions', {
        consent_version_id: version,
        decision,
      });
      expect(response.statusCode, response.body).toBe(201);
    };
    await decideOn(first, 'given');
    await decideOn(second, 'given');
    await decideOn(third, 'reject');
    const request = await open('lea', { kind: 'withdrawal' });
    const early = await step(request.request_id, { step: 'done' });
    expect(early.statusCode).toBe(409);
    const untouched = json(await send('GET', '/api/v1/customers/lea/consents')).data;
    expect(
      untouched.templates.map(
        (c: { last_decision: { decision: string } }) => c.last_decision.decision,
      ),
    ).not.toContain('withdraw');
    await stepOk(request.request_id, { step: 'identity_checked' });
    const done = await stepOk(request.request_id, { step: 'done' });
    expect(done.withdrawn).toEqual([first, second].sort());
    expect(done.status).toBe('done');
    const consents = json(await send('GET', '/api/v1/customers/lea/consents')).data;
    const lastOf = (code: string) =>
      consents.templates.find((c: { template_code: string }) => c.template_code === code)
        ?.last_decision.decision;
    expect([lastOf(first), lastOf(second), lastOf(third)]).toEqual([
      'withdraw',
      'withdraw',
      'reject',
    ]);
    const again = await step(request.request_id, { step: 'done' });
    expect(again.statusCode).toBe(409);
  });

  it("is the tenant's own: another tenant's key finds no request and takes no step", async () => {
    const request = await open('fay', { kind: 'rectification', details: 'My address moved.' });
    const seen = await send('GET', `/api/v1/requests/${request.request_id}`, undefined, b);
    expect(seen.statusCode).toBe(404);
    expect(expectErrorShape(seen)).toMatchObject({ code: '1004', message: 'Request not found.' });
    expect((await step(request.request_id, { step: 'in_progress' }, b)).statusCode).toBe(404);
    const stepId = request.steps[0].step_id;
    const foreign = await send('GET', `/api/v1/request-steps/${stepId}/receipt`, undefined, b);
    expect(foreign.statusCode).toBe(404);
  });

  it('an erasure request done erases the customer in the same act: a verified erasure, its steps proven', async () => {
    const customer = 'ida.erase-5c1d@example.test';
    const request = await open(customer, { kind: 'erasure', details: 'Forget me.' });
    await stepOk(request.request_id, { step: 'identity_checked' });
    const done = await stepOk(request.request_id, { step: 'done' });
    expect(done).toMatchObject({
      status: 'done',
      customer_id: null,
      details: null,
      closed_at: expect.any(String),
    });
    expect(done.steps.map((s: { step: string }) => s.step)).toEqual([
      'received',
      'identity_checked',
      'done',
    ]);
    expect((await storeBytes(t.db, t.config.databaseUrl)).includes(customer)).toBe(false);
    // Nothing of theirs is found any more.
    expect(json(await send('GET', `/api/v1/customers/${customer}/requests`)).data).toEqual([]);
    const erasures = await t.db
      .selectFrom('audit_log')
      .select(['action', 'actor'])
      .where('tenant_id', '=', a.tenant.id)
      .where('action', '=', 'customer.erased')
      .execute();
    expect(erasures).toContainEqual({ action: 'customer.erased', actor: `api-key:${a.apiKey.id}` });
    for (const s of done.steps) {
      const proof = await receipt(s.step_id);
      expect(proof.data.opening).toBeNull();
      expect(verifyReceipt(proof, [verifier()], registry.formats)).toMatchObject({ ok: true });
    }
    expect(await auditLog(t.db, t.vault, registry, a.tenant.id)).toMatchObject({
      ok: true,
      findings: [],
    });
  });

  it('an erasure request is not done before identity is checked: nothing is erased', async () => {
    const request = await open('jan', { kind: 'erasure' });
    const early = await step(request.request_id, { step: 'done' });
    expect(early.statusCode).toBe(409);
    const after = json(await send('GET', `/api/v1/requests/${request.request_id}`)).data;
    expect(after).toMatchObject({ customer_id: 'jan', status: 'received' });
  });

  it('erasing the customer leaves the steps as proof without whose they were; the log audits clean', async () => {
    const customer = 'gus.rights-3f7a@example.test';
    const request = await open(customer, {
      kind: 'erasure',
      details: `Please erase ${customer} everywhere.`,
    });
    await stepOk(request.request_id, { step: 'identity_checked' });
    await receipt(request.steps[0].step_id);
    expect(await auditLog(t.db, t.vault, registry, a.tenant.id)).toMatchObject({
      ok: true,
      findings: [],
    });
    const erased = await eraseCustomer(t.db, t.vault, registry, a.tenant.id, customer, actor);
    expect(erased.erased).toBe(true);
    expect((await storeBytes(t.db, t.config.databaseUrl)).includes(customer)).toBe(false);
    const after = json(await send('GET', `/api/v1/requests/${request.request_id}`)).data;
    expect(after).toMatchObject({ customer_id: null, details: null, status: 'identity_checked' });
    const late = await step(request.request_id, { step: 'done' });
    expect(late.statusCode).toBe(409);
    expect(expectErrorShape(late).message).toContain('erased');
    const proof = await receipt(request.steps[0].step_id);
    expect(proof.data.opening).toBeNull();
    expect(verifyReceipt(proof, [verifier()], registry.formats)).toMatchObject({
      ok: true,
      value: { opened: false },
    });
    expect(await auditLog(t.db, t.vault, registry, a.tenant.id)).toMatchObject({
      ok: true,
      findings: [],
    });
  });
});
