/**
 * Consent that lapses: a template's validity period (calendar months) and what `pending`,
 * `as-of` and the customer's consents answer once a `given` is older than it. Decisions are
 * placed on a fixed timeline in the store (the service dates a decision by its writer's clock),
 * and the reads are made at fixed moments with a faked `Date` on the real HTTP stack, so no
 * expectation depends on the wall clock. Expected answers are written out in full.
 */
import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { changeValidityAs } from '../../src/templates/actions.js';
import { getTemplateByCode } from '../../src/templates/service.js';
import { apiOf } from '../helpers/api.js';
import { json, startTestApp, type TestApp } from '../helpers/app.js';
import { insertDecisionAt } from '../helpers/decisions.js';
import { publish, type SeededTenant, seedTemplate, seedTenant, unique } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';

/** Every template of this file was published at this moment, before any moment asked about. */
const publishedAt = '2025-06-01T00:00:00.000Z';
const content = '<p>Terms</p>';
const contentSha256 = createHash('sha256').update(content).digest('hex');

describe.each(stores)('consent that lapses on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let api: ReturnType<typeof apiOf>;

  beforeAll(async () => {
    t = await startTestApp(store);
    a = await seedTenant(t.db);
    api = apiOf(t.app, a.headers);
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  afterAll(async () => {
    await t.close();
  });

  const actor = () => ({
    tenantId: a.tenant.id,
    actorKind: 'tenant' as const,
    actor: 'setup',
    ip: '127.0.0.1',
    userAgent: null,
  });

  /**
   * A template with one version `1.0` published at `publishedAt`, and the validity period given
   * (none: null), set before anything reads it; its code and version id.
   */
  async function template(
    months: number | null,
    fields: { allow_reconsent?: boolean } = {},
  ): Promise<{ code: string; id: string }> {
    const code = await seedTemplate(t.db, a.tenant.id);
    if (months !== null) await setValidity(code, months);
    const v = await publish(t.db, a.tenant.id, code, {
      tag: '1.0',
      content_html: content,
      ...fields,
    });
    await t.db
      .updateTable('template_versions')
      .set({ published_at: publishedAt })
      .where('tenant_id', '=', a.tenant.id)
      .where('id', '=', v.consent_version_id)
      .execute();
    return { code, id: v.consent_version_id };
  }

  async function setValidity(code: string, months: number | null) {
    await t.db.transaction().execute(async (trx) => {
      const row = await getTemplateByCode(trx, a.tenant.id, code);
      await changeValidityAs(trx, actor(), row, months);
    });
  }

  const decideAt = (
    customer: string,
    id: string,
    decision: 'given' | 'reject' | 'withdraw',
    at: string,
  ) =>
    insertDecisionAt(
      t,
      { tenantId: a.tenant.id, apiKeyId: a.apiKey.id },
      customer,
      id,
      decision,
      at,
    );

  /** The answer of `read` to a request made at the moment `at` (UTC). */
  async function at<T>(moment: string, read: () => Promise<T>): Promise<T> {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.parse(moment));
    try {
      return await read();
    } finally {
      vi.useRealTimers();
    }
  }

  const pendingAt = (moment: string, customer: string, code: string) =>
    at(moment, () => api.pending(customer, code));

  function asOf(customer: string, code: string, moment: string) {
    return t.app.inject({
      method: 'GET',
      url: `/api/v1/customers/${encodeURIComponent(customer)}/consents/templates/${code}/as-of?at=${encodeURIComponent(moment)}`,
      headers: a.headers,
    });
  }

  function consentsAt(moment: string, customer: string) {
    return at(moment, () =>
      t.app.inject({
        method: 'GET',
        url: `/api/v1/customers/${encodeURIComponent(customer)}/consents`,
        headers: a.headers,
      }),
    );
  }

  /** V of the template's version, as the contract orders its fields. */
  const versionJson = (code: string, id: string, allowReconsent = true) =>
    `{"consent_version_id":"${id}","template_code":"${code}","version":1,"tag":"1.0","content_html":"<p>Terms</p>","file_url":"https://consent.test/api/content/${id}.html","allow_reconsent":${allowReconsent},"published_at":"${publishedAt}"}`;

  describe('a template without a validity period answers as before, byte for byte', () => {
    it('pending, for a given of long ago, a customer never seen and a reject', async () => {
      const { code, id } = await template(null);
      const given = unique('given');
      const rejected = unique('rejected');
      await decideAt(given, id, 'given', '2025-07-01T09:00:00.000Z');
      await decideAt(rejected, id, 'reject', '2025-07-02T09:00:00.000Z');
      // Fourteen years on: longer than any validity period a template may set.
      const moment = '2040-01-01T00:00:00.000Z';

      const answer = await pendingAt(moment, given, code);
      expect(answer.statusCode).toBe(200);
      expect(answer.body).toBe(
        `{"data":{"accepted":true,"consent_version":${versionJson(code, id)},"decision":"given","decided_at":"2025-07-01T09:00:00.000Z"}}`,
      );
      expect((await pendingAt(moment, unique('nobody'), code)).body).toBe(
        `{"data":{"accepted":false,"consent_version":${versionJson(code, id)},"decision":null,"decided_at":null}}`,
      );
      expect((await pendingAt(moment, rejected, code)).body).toBe(
        `{"data":{"accepted":true,"consent_version":${versionJson(code, id)},"decision":"reject","decided_at":"2025-07-02T09:00:00.000Z"}}`,
      );
    });

    it('as-of, long after the given', async () => {
      const { code, id } = await template(null);
      const customer = unique('c');
      const decisionId = await decideAt(customer, id, 'given', '2025-07-01T09:00:00.000Z');
      const answer = await asOf(customer, code, '2040-01-01T00:00:00Z');
      expect(answer.statusCode).toBe(200);
      expect(answer.body).toBe(
        `{"data":{"customer_id":"${customer}","template_code":"${code}","at":"2040-01-01T00:00:00.000Z","decision":{"decision_id":"${decisionId}","decision":"given","decided_at":"2025-07-01T09:00:00.000Z","consent_version_id":"${id}","version":1,"tag":"1.0","content_sha256":"${contentSha256}"},"latest_version":{"consent_version_id":"${id}","version":1,"tag":"1.0","published_at":"${publishedAt}"},"accepted":true}}`,
      );
    });

    it("the customer's consents", async () => {
      const { code, id } = await template(null);
      const customer = unique('c');
      const decisionId = await decideAt(customer, id, 'given', '2025-07-01T09:00:00.000Z');
      const answer = await consentsAt('2040-01-01T00:00:00.000Z', customer);
      expect(answer.statusCode).toBe(200);
      expect(answer.body).toBe(
        `{"data":{"customer_id":"${customer}","templates":[{"template_code":"${code}","latest_version":{"consent_version_id":"${id}","version":1,"tag":"1.0"},"accepted":true,"last_decision":{"decision_id":"${decisionId}","decision":"given","consent_version_id":"${id}","version":1,"tag":"1.0","decided_at":"2025-07-01T09:00:00.000Z"}}],"history":[{"decision_id":"${decisionId}","template_code":"${code}","consent_version_id":"${id}","version":1,"tag":"1.0","decision":"given","decided_at":"2025-07-01T09:00:00.000Z","content_sha256":"${contentSha256}"}],"next_cursor":null}}`,
      );
    });
  });

  describe('pending, with a validity period of one month', () => {
    // 31 January + 1 month: the last day of February, at the same time of day.
    const given = '2030-01-31T10:00:00.000Z';
    const expires = '2030-02-28T10:00:00.000Z';

    it('is accepted until the instant the given lapses, and from that instant on is not, saying when it expired', async () => {
      const { code, id } = await template(1);
      const customer = unique('c');
      await decideAt(customer, id, 'given', given);
      const standing = (accepted: boolean, expired: boolean) =>
        `{"data":{"accepted":${accepted},"consent_version":${versionJson(code, id)},"decision":"given","decided_at":"${given}","expired":${expired},"expires_at":"${expires}"}}`;

      // A day before, and the last millisecond before.
      expect((await pendingAt('2030-02-27T10:00:00.000Z', customer, code)).body).toBe(
        standing(true, false),
      );
      expect((await pendingAt('2030-02-28T09:59:59.999Z', customer, code)).body).toBe(
        standing(true, false),
      );
      // The exact instant, and a day after.
      expect((await pendingAt(expires, customer, code)).body).toBe(standing(false, true));
      expect((await pendingAt('2030-03-01T10:00:00.000Z', customer, code)).body).toBe(
        standing(false, true),
      );
    });

    it('a new given renews it: a month from the new one', async () => {
      const { code, id } = await template(1);
      const customer = unique('c');
      await decideAt(customer, id, 'given', given);
      await decideAt(customer, id, 'given', '2030-03-05T09:00:00.000Z');
      const answer = json(await pendingAt('2030-03-06T00:00:00.000Z', customer, code)).data;
      expect(answer).toMatchObject({
        accepted: true,
        decision: 'given',
        decided_at: '2030-03-05T09:00:00.000Z',
        expired: false,
        expires_at: '2030-04-05T09:00:00.000Z',
      });
    });

    it('a withdraw or a reject does not lapse: answered as without a validity period, with neither expired nor expires_at', async () => {
      const { code, id } = await template(1);
      const withdrawn = unique('withdrawn');
      await decideAt(withdrawn, id, 'given', given);
      await decideAt(withdrawn, id, 'withdraw', '2030-02-10T08:00:00.000Z');
      const rejected = unique('rejected');
      await decideAt(rejected, id, 'given', given);
      await decideAt(rejected, id, 'reject', '2030-02-10T08:00:00.000Z');
      const moment = '2031-01-01T00:00:00.000Z';
      expect((await pendingAt(moment, withdrawn, code)).body).toBe(
        `{"data":{"accepted":true,"consent_version":${versionJson(code, id)},"decision":"withdraw","decided_at":"2030-02-10T08:00:00.000Z"}}`,
      );
      expect((await pendingAt(moment, rejected, code)).body).toBe(
        `{"data":{"accepted":true,"consent_version":${versionJson(code, id)},"decision":"reject","decided_at":"2030-02-10T08:00:00.000Z"}}`,
      );
    });

    it('a customer never seen is answered as without a validity period', async () => {
      const { code, id } = await template(1);
      expect((await pendingAt(given, unique('nobody'), code)).body).toBe(
        `{"data":{"accepted":false,"consent_version":${versionJson(code, id)},"decision":null,"decided_at":null}}`,
      );
    });

    it('a given on an older version does not renew the latest one', async () => {
      const code = await seedTemplate(t.db, a.tenant.id);
      await setValidity(code, 1);
      const v1 = await publish(t.db, a.tenant.id, code, { tag: '1.0' });
      const v2 = await publish(t.db, a.tenant.id, code, { tag: '2.0' });
      const customer = unique('c');
      await decideAt(customer, v2.consent_version_id, 'given', given);
      await decideAt(customer, v1.consent_version_id, 'given', '2030-02-20T00:00:00.000Z');
      const answer = json(await pendingAt('2030-03-01T00:00:00.000Z', customer, code)).data;
      expect(answer).toMatchObject({
        accepted: false,
        decision: 'given',
        decided_at: given,
        expired: true,
        expires_at: expires,
      });
    });
  });

  it('twelve months from 29 February end on 28 February; from 15 March, on 15 March', async () => {
    const { code, id } = await template(12);
    const leap = unique('leap');
    await decideAt(leap, id, 'given', '2032-02-29T23:30:00.000Z');
    const plain = unique('plain');
    await decideAt(plain, id, 'given', '2030-03-15T08:30:00.000Z');
    const moment = '2030-06-01T00:00:00.000Z';
    expect(json(await pendingAt('2033-02-28T23:29:59.999Z', leap, code)).data).toMatchObject({
      accepted: true,
      expired: false,
      expires_at: '2033-02-28T23:30:00.000Z',
    });
    expect(json(await pendingAt('2033-02-28T23:30:00.000Z', leap, code)).data).toMatchObject({
      accepted: false,
      expired: true,
      expires_at: '2033-02-28T23:30:00.000Z',
    });
    expect(json(await pendingAt(moment, plain, code)).data).toMatchObject({
      accepted: true,
      expired: false,
      expires_at: '2031-03-15T08:30:00.000Z',
    });
  });

  describe('as-of, under the validity period in force at its moment', () => {
    it('before the given lapsed, at the instant and after: accepted, then not, saying when', async () => {
      const { code, id } = await template(1);
      const customer = unique('c');
      const decisionId = await decideAt(customer, id, 'given', '2030-01-31T10:00:00.000Z');
      const body = (moment: string, accepted: boolean, expired: boolean) =>
        `{"data":{"customer_id":"${customer}","template_code":"${code}","at":"${moment}","decision":{"decision_id":"${decisionId}","decision":"given","decided_at":"2030-01-31T10:00:00.000Z","consent_version_id":"${id}","version":1,"tag":"1.0","content_sha256":"${contentSha256}"},"latest_version":{"consent_version_id":"${id}","version":1,"tag":"1.0","published_at":"${publishedAt}"},"accepted":${accepted},"expired":${expired},"expires_at":"2030-02-28T10:00:00.000Z"}}`;
      for (const [moment, accepted, expired] of [
        ['2030-02-27T10:00:00.000Z', true, false],
        ['2030-02-28T10:00:00.000Z', false, true],
        ['2030-03-01T10:00:00.000Z', false, true],
      ] as const) {
        const answer = await asOf(customer, code, moment);
        expect(answer.statusCode).toBe(200);
        expect(answer.body).toBe(body(moment, accepted, expired));
      }
    });

    it('a renewal, and a reject after it, are each read as of the moment', async () => {
      const code = await seedTemplate(t.db, a.tenant.id);
      await setValidity(code, 1);
      const v1 = await publish(t.db, a.tenant.id, code, { tag: '1.0' });
      const customer = unique('c');
      await decideAt(customer, v1.consent_version_id, 'given', '2030-01-10T00:00:00.000Z');
      await decideAt(customer, v1.consent_version_id, 'given', '2030-03-01T00:00:00.000Z');
      await decideAt(customer, v1.consent_version_id, 'reject', '2030-05-01T00:00:00.000Z');
      const read = async (moment: string) => json(await asOf(customer, code, moment)).data;
      expect(await read('2030-02-15T00:00:00.000Z')).toMatchObject({
        accepted: false,
        expired: true,
        expires_at: '2030-02-10T00:00:00.000Z',
      });
      expect(await read('2030-03-15T00:00:00.000Z')).toMatchObject({
        accepted: true,
        expired: false,
        expires_at: '2030-04-01T00:00:00.000Z',
      });
      const afterReject = await read('2030-06-01T00:00:00.000Z');
      expect(afterReject.accepted).toBe(true);
      expect(afterReject.decision.decision).toBe('reject');
      expect(Object.keys(afterReject)).toEqual([
        'customer_id',
        'template_code',
        'at',
        'decision',
        'latest_version',
        'accepted',
      ]);
    });

    it('a moment before the period was set is answered as without one: a later setting does not rewrite the past', async () => {
      const { code, id } = await template(null);
      const customer = unique('c');
      const decisionId = await decideAt(customer, id, 'given', '2025-07-01T09:00:00.000Z');
      // Set now (after every moment below but the last), the period would have lapsed the given
      // on 2025-08-01.
      await setValidity(code, 1);
      const moment = '2026-01-01T00:00:00.000Z';
      expect((await asOf(customer, code, moment)).body).toBe(
        `{"data":{"customer_id":"${customer}","template_code":"${code}","at":"${moment}","decision":{"decision_id":"${decisionId}","decision":"given","decided_at":"2025-07-01T09:00:00.000Z","consent_version_id":"${id}","version":1,"tag":"1.0","content_sha256":"${contentSha256}"},"latest_version":{"consent_version_id":"${id}","version":1,"tag":"1.0","published_at":"${publishedAt}"},"accepted":true}}`,
      );
      expect(json(await asOf(customer, code, '2040-01-01T00:00:00Z')).data).toMatchObject({
        accepted: false,
        expired: true,
        expires_at: '2025-08-01T09:00:00.000Z',
      });
    });
  });

  it("the customer's consents say of each template what pending says", async () => {
    const { code, id } = await template(1);
    const customer = unique('c');
    const decisionId = await decideAt(customer, id, 'given', '2030-01-31T10:00:00.000Z');
    const standing = async (moment: string) =>
      json(await consentsAt(moment, customer)).data.templates[0];
    const lastDecision = {
      decision_id: decisionId,
      decision: 'given',
      consent_version_id: id,
      version: 1,
      tag: '1.0',
      decided_at: '2030-01-31T10:00:00.000Z',
    };
    expect(await standing('2030-02-27T10:00:00.000Z')).toEqual({
      template_code: code,
      latest_version: { consent_version_id: id, version: 1, tag: '1.0' },
      accepted: true,
      last_decision: lastDecision,
      expired: false,
      expires_at: '2030-02-28T10:00:00.000Z',
    });
    const lapsed = await standing('2030-02-28T10:00:00.000Z');
    expect(lapsed).toEqual({
      template_code: code,
      latest_version: { consent_version_id: id, version: 1, tag: '1.0' },
      accepted: false,
      last_decision: lastDecision,
      expired: true,
      expires_at: '2030-02-28T10:00:00.000Z',
    });
    expect(Object.keys(lapsed)).toEqual([
      'template_code',
      'latest_version',
      'accepted',
      'last_decision',
      'expired',
      'expires_at',
    ]);
  });

  describe('on a version that does not allow re-consent', () => {
    it('a given after a lapsed given is recorded (201) and makes the customer accepted again; a reject is recorded too', async () => {
      // Twelve months from 2025-01-15: lapsed long before any request this test makes.
      const { code, id } = await template(12, { allow_reconsent: false });
      const renewing = unique('renewing');
      await decideAt(renewing, id, 'given', '2025-01-15T00:00:00.000Z');
      expect(json(await api.pending(renewing, code)).data).toMatchObject({
        accepted: false,
        expired: true,
        expires_at: '2026-01-15T00:00:00.000Z',
      });
      const renewed = await api.decide(renewing, id, 'given');
      expect(renewed.statusCode).toBe(201);
      const pending = json(await api.pending(renewing, code)).data;
      expect(pending).toMatchObject({
        accepted: true,
        decision: 'given',
        decided_at: json(renewed).data.decided_at,
        expired: false,
      });
      // Not lapsed, the same given again changes nothing, as before.
      const again = await api.decide(renewing, id, 'given');
      expect(again.statusCode).toBe(200);
      expect(json(again).data.decision_id).toBe(json(renewed).data.decision_id);

      const refusing = unique('refusing');
      await decideAt(refusing, id, 'given', '2025-01-15T00:00:00.000Z');
      const rejected = await api.decide(refusing, id, 'reject');
      expect(rejected.statusCode).toBe(201);
      const after = json(await api.pending(refusing, code)).data;
      expect(after).toMatchObject({ accepted: true, decision: 'reject' });
      expect(Object.keys(after)).toEqual(['accepted', 'consent_version', 'decision', 'decided_at']);
    });

    it('without a validity period, a different decision is still refused (409)', async () => {
      const { id } = await template(null, { allow_reconsent: false });
      const customer = unique('c');
      await decideAt(customer, id, 'given', '2025-01-15T00:00:00.000Z');
      const refused = await api.decide(customer, id, 'reject');
      expect(refused.statusCode).toBe(409);
      expect(json(refused)).toEqual({
        code: '1005',
        message: 'Re-consent is not allowed for this version.',
      });
    });
  });
});
