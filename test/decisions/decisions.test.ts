import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/platform/hashing.js';
import { personalReader } from '../../src/subjects/service.js';
import { createDraftVersion, getTemplateByCode } from '../../src/templates/service.js';
import { apiOf } from '../helpers/api.js';
import { expectErrorShape, json, startTestApp, subjectIdOf, type TestApp } from '../helpers/app.js';
import { sealedAsBase64 } from '../helpers/sealed.js';
import { publish, type SeededTenant, seedTemplate, seedTenant, unique } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';

describe.each(stores)('POST .../decisions on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let api: ReturnType<typeof apiOf>;

  beforeAll(async () => {
    t = await startTestApp(store);
    a = await seedTenant(t.db);
    api = apiOf(t.app, a.headers);
  });
  afterAll(async () => {
    await t.close();
  });

  /** The random id the store knows the customer by; throws when it has none. */
  async function subjectOf(customer: string): Promise<string> {
    const id = await subjectIdOf(t, a.tenant.id, customer);
    if (id === undefined) throw new Error(`no subject for customer ${customer}`);
    return id;
  }

  async function countDecisions(customer: string): Promise<number> {
    // A decision needs its customer's subject: without one, the customer has none.
    const subjectId = await subjectIdOf(t, a.tenant.id, customer);
    if (subjectId === undefined) return 0;
    const rows = await t.db
      .selectFrom('decisions')
      .select('id')
      .where('tenant_id', '=', a.tenant.id)
      .where('subject_id', '=', subjectId)
      .execute();
    return rows.length;
  }

  async function newVersion(fields: { allow_reconsent?: boolean; content_html?: string } = {}) {
    const code = await seedTemplate(t.db, a.tenant.id);
    return { code, v: await publish(t.db, a.tenant.id, code, fields) };
  }

  it('a recorded decision is 201 {"data": D} with exactly the fields of D', async () => {
    const { code, v } = await newVersion();
    const customer = unique('c');
    const response = await api.decide(customer, v.consent_version_id, 'given');
    expect(response.statusCode).toBe(201);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    const body = json(response);
    expect(Object.keys(body)).toEqual(['data']);
    expect(body.data).toEqual({
      decision_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      customer_id: customer,
      template_code: code,
      consent_version_id: v.consent_version_id,
      version: 1,
      decision: 'given',
      decided_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
  });

  describe('Cache-Control: no-store (docs/api-behaviour.md, Caching)', () => {
    it('on a recorded decision (201) and on its idempotent replay', async () => {
      const { v } = await newVersion();
      const customer = unique('c');
      const idempotency = { 'idempotency-key': unique('idem') };
      const first = await api.decide(customer, v.consent_version_id, 'given', idempotency);
      expect(first.statusCode).toBe(201);
      expect(first.headers['cache-control']).toBe('no-store');
      const replay = await api.decide(customer, v.consent_version_id, 'given', idempotency);
      expect(replay.statusCode).toBe(201);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.headers['cache-control']).toBe('no-store');
    });

    it('on the existing decision answered 200 and on a rule refusal answered 409', async () => {
      const { v } = await newVersion({ allow_reconsent: false });
      const customer = unique('c');
      expect((await api.decide(customer, v.consent_version_id, 'given')).statusCode).toBe(201);
      const same = await api.decide(customer, v.consent_version_id, 'given');
      expect(same.statusCode).toBe(200);
      expect(same.headers['cache-control']).toBe('no-store');
      const refused = await api.decide(customer, v.consent_version_id, 'reject');
      expect(expectErrorShape(refused).code).toBe('1005');
      expect(refused.statusCode).toBe(409);
      expect(refused.headers['cache-control']).toBe('no-store');
    });
  });

  describe('customer_id is case-sensitive (docs/api-behaviour.md, Identifiers)', () => {
    it("a decision by one customer is not another's whose id differs only in case", async () => {
      const { code, v } = await newVersion();
      const upper = `Alice-${unique('c')}`;
      const lower = upper.toLowerCase();
      const given = await api.decide(upper, v.consent_version_id, 'given');
      expect(given.statusCode).toBe(201);
      expect(json(given).data.customer_id).toBe(upper);
      // The other spelling has decided nothing: pending is not accepted, and it has nothing
      // to withdraw.
      const pendingLower = json(await api.pending(lower, code)).data;
      expect(pendingLower).toMatchObject({ accepted: false, decision: null, decided_at: null });
      expect(json(await api.pending(upper, code)).data).toMatchObject({
        accepted: true,
        decision: 'given',
      });
      const withdraw = await api.decide(lower, v.consent_version_id, 'withdraw');
      expect(withdraw.statusCode).toBe(409);
      expect(expectErrorShape(withdraw).message).toBe('Nothing to withdraw.');
      // Each has a record of its own, with its own decisions.
      expect(await countDecisions(upper)).toBe(1);
      expect(await countDecisions(lower)).toBe(0);
      expect((await api.decide(lower, v.consent_version_id, 'reject')).statusCode).toBe(201);
      expect(await subjectOf(lower)).not.toBe(await subjectOf(upper));
      expect(json(await api.pending(upper, code)).data.decision).toBe('given');
      expect(json(await api.pending(lower, code)).data.decision).toBe('reject');
    });

    it('the history of one is not the history of the other', async () => {
      const { code, v } = await newVersion();
      const upper = `BOB-${unique('c')}`;
      const lower = upper.toLowerCase();
      expect((await api.decide(upper, v.consent_version_id, 'given')).statusCode).toBe(201);
      expect((await api.decide(lower, v.consent_version_id, 'reject')).statusCode).toBe(201);
      for (const [customer, decision] of [
        [upper, 'given'],
        [lower, 'reject'],
      ] as const) {
        const response = await t.app.inject({
          method: 'GET',
          url: `/api/v1/customers/${customer}/consents`,
          headers: a.headers,
        });
        expect(response.statusCode).toBe(200);
        const data = json(response).data;
        expect(data.customer_id).toBe(customer);
        expect(data.history.map((h: { decision: string }) => h.decision)).toEqual([decision]);
        expect(data.templates).toEqual([
          expect.objectContaining({
            template_code: code,
            last_decision: expect.objectContaining({ decision }),
          }),
        ]);
      }
    });
  });

  it('keeps the evidence: API key, IP, user agent and the SHA-256 of the content shown', async () => {
    const content = '<p>What the customer saw</p>';
    const { v } = await newVersion({ content_html: content });
    const customer = unique('c');
    const response = await t.app.inject({
      method: 'POST',
      url: `/api/v1/customers/${customer}/consents/decisions`,
      headers: { ...a.headers, 'user-agent': 'ExampleApp/3.2 (iOS 18)' },
      remoteAddress: '198.51.100.7',
      payload: { consent_version_id: v.consent_version_id, decision: 'given' },
    });
    const id = json(response).data.decision_id;
    const row = await sealedAsBase64(
      t.db,
      await t.db
        .selectFrom('decisions')
        .selectAll()
        .where('tenant_id', '=', a.tenant.id)
        .where('id', '=', id)
        .executeTakeFirstOrThrow(),
    );
    expect(row).toMatchObject({
      api_key_id: a.apiKey.id,
      subject_id: await subjectOf(customer),
      decision: 'given',
    });
    // The text's hash is its version's, the one the decision names (migration 0059).
    const shown = await t.db
      .selectFrom('template_versions')
      .select('content_sha256')
      .where('tenant_id', '=', a.tenant.id)
      .where('id', '=', row.consent_version_id)
      .executeTakeFirstOrThrow();
    expect(shown.content_sha256).toBe(sha256Hex(content));
    expect(row.consent_version_id).toBe(v.consent_version_id);
    // The customer id, IP and user agent are kept sealed under the customer's key.
    expect(row.personal).not.toContain('198.51.100.7');
    expect(row.personal).not.toContain(customer);
    const [opened] = await personalReader(t.db, t.vault, a.tenant.id)([row]);
    expect(opened).toMatchObject({
      state: 'open',
      personal: {
        customer_id: customer,
        ip: '198.51.100.7',
        user_agent: 'ExampleApp/3.2 (iOS 18)',
      },
    });
  });

  it('accepts the version id in upper case', async () => {
    const { v } = await newVersion();
    const response = await api.decide(unique('c'), v.consent_version_id.toUpperCase(), 'given');
    expect(response.statusCode).toBe(201);
    expect(json(response).data.consent_version_id).toBe(v.consent_version_id);
  });

  it('when the version does not exist, answers 404 1004 Consent version not found.', async () => {
    const response = await api.decide('c', '01900000-0000-7000-8000-000000000000', 'given');
    expect(response.statusCode).toBe(404);
    expect(expectErrorShape(response)).toEqual({
      code: '1004',
      message: 'Consent version not found.',
    });
  });

  it('when the version is a draft (unpublished), answers 404 1004', async () => {
    const code = await seedTemplate(t.db, a.tenant.id);
    const draft = await t.db.transaction().execute(async (trx) =>
      createDraftVersion(trx, await getTemplateByCode(trx, a.tenant.id, code), {
        tag: '1.0',
        content_html: '<p>draft</p>',
      }),
    );
    const response = await api.decide('c', draft.id, 'given');
    expect(response.statusCode).toBe(404);
    expect(expectErrorShape(response).code).toBe('1004');
  });

  describe('withdraw', () => {
    it('with no earlier decision, answers 409 1005 Nothing to withdraw.', async () => {
      const { v } = await newVersion();
      const customer = unique('c');
      const response = await api.decide(customer, v.consent_version_id, 'withdraw');
      expect(response.statusCode).toBe(409);
      expect(expectErrorShape(response)).toEqual({ code: '1005', message: 'Nothing to withdraw.' });
      expect(await countDecisions(customer)).toBe(0);
    });

    it('after a given, is recorded (201)', async () => {
      const { v } = await newVersion();
      const customer = unique('c');
      await api.decide(customer, v.consent_version_id, 'given');
      const response = await api.decide(customer, v.consent_version_id, 'withdraw');
      expect(response.statusCode).toBe(201);
      expect(json(response).data.decision).toBe('withdraw');
    });

    it.each(['reject', 'withdraw'])(
      'when the most recent decision is %s, answers 409 1005',
      async (last) => {
        const { v } = await newVersion();
        const customer = unique('c');
        await api.decide(customer, v.consent_version_id, 'given');
        if (last === 'reject') await api.decide(customer, v.consent_version_id, 'reject');
        else
          expect((await api.decide(customer, v.consent_version_id, 'withdraw')).statusCode).toBe(
            201,
          );
        const response = await api.decide(customer, v.consent_version_id, 'withdraw');
        expect(response.statusCode).toBe(409);
        expect(expectErrorShape(response)).toEqual({
          code: '1005',
          message: 'Nothing to withdraw.',
        });
      },
    );

    it('looks at the most recent decision on the template, whatever its version', async () => {
      const code = await seedTemplate(t.db, a.tenant.id);
      const v1 = await publish(t.db, a.tenant.id, code);
      const v2 = await publish(t.db, a.tenant.id, code);
      const customer = unique('c');
      await api.decide(customer, v1.consent_version_id, 'given');
      // given on v1, then withdraw naming v2: recorded on v2.
      const response = await api.decide(customer, v2.consent_version_id, 'withdraw');
      expect(response.statusCode).toBe(201);
      expect(json(response).data).toMatchObject({ version: 2, decision: 'withdraw' });
      // a given on v2 followed by a reject on v1: the most recent is reject, nothing to withdraw.
      await api.decide(customer, v2.consent_version_id, 'given');
      await api.decide(customer, v1.consent_version_id, 'reject');
      expect((await api.decide(customer, v2.consent_version_id, 'withdraw')).statusCode).toBe(409);
    });

    it('is accepted even when the version does not allow re-consent', async () => {
      const { v } = await newVersion({ allow_reconsent: false });
      const customer = unique('c');
      await api.decide(customer, v.consent_version_id, 'given');
      const response = await api.decide(customer, v.consent_version_id, 'withdraw');
      expect(response.statusCode).toBe(201);
    });

    it("does not see another customer's consent", async () => {
      const { v } = await newVersion();
      await api.decide(unique('c'), v.consent_version_id, 'given');
      expect((await api.decide(unique('c'), v.consent_version_id, 'withdraw')).statusCode).toBe(
        409,
      );
    });
  });

  describe('re-consent', () => {
    it('when allow_reconsent is true, a second given or reject is a new decision (201)', async () => {
      const { v } = await newVersion({ allow_reconsent: true });
      const customer = unique('c');
      const first = json(await api.decide(customer, v.consent_version_id, 'given')).data;
      const again = await api.decide(customer, v.consent_version_id, 'given');
      expect(again.statusCode).toBe(201);
      expect(json(again).data.decision_id).not.toBe(first.decision_id);
      expect((await api.decide(customer, v.consent_version_id, 'reject')).statusCode).toBe(201);
      expect(await countDecisions(customer)).toBe(3);
    });

    it.each(['given', 'reject'])(
      'when allow_reconsent is false, the same %s again answers 200 with the existing decision and stores nothing',
      async (decision) => {
        const { v } = await newVersion({ allow_reconsent: false });
        const customer = unique('c');
        const first = await api.decide(customer, v.consent_version_id, decision);
        expect(first.statusCode).toBe(201);
        const again = await api.decide(customer, v.consent_version_id, decision);
        expect(again.statusCode).toBe(200);
        expect(json(again)).toEqual(json(first));
        expect(await countDecisions(customer)).toBe(1);
      },
    );

    it('when allow_reconsent is false, another value answers 409 1005 Re-consent is not allowed', async () => {
      const { v } = await newVersion({ allow_reconsent: false });
      const customer = unique('c');
      await api.decide(customer, v.consent_version_id, 'given');
      const response = await api.decide(customer, v.consent_version_id, 'reject');
      expect(response.statusCode).toBe(409);
      expect(expectErrorShape(response)).toEqual({
        code: '1005',
        message: 'Re-consent is not allowed for this version.',
      });
      expect(await countDecisions(customer)).toBe(1);
    });

    it('when allow_reconsent is false, compares with the most recent decision on that version', async () => {
      const { v } = await newVersion({ allow_reconsent: false });
      const customer = unique('c');
      await api.decide(customer, v.consent_version_id, 'given');
      await api.decide(customer, v.consent_version_id, 'withdraw');
      // The most recent decision on the version is now withdraw: given differs from it.
      expect((await api.decide(customer, v.consent_version_id, 'given')).statusCode).toBe(409);
    });

    it('applies per version: a new version takes a fresh decision', async () => {
      const code = await seedTemplate(t.db, a.tenant.id);
      const v1 = await publish(t.db, a.tenant.id, code, { allow_reconsent: false });
      const customer = unique('c');
      await api.decide(customer, v1.consent_version_id, 'given');
      const v2 = await publish(t.db, a.tenant.id, code, { allow_reconsent: false });
      expect((await api.decide(customer, v2.consent_version_id, 'reject')).statusCode).toBe(201);
    });
  });

  it('never updates or deletes a decision: the history keeps every one in order', async () => {
    const { v } = await newVersion();
    const customer = unique('c');
    const ids = [];
    for (const d of ['given', 'withdraw', 'reject', 'given', 'withdraw']) {
      ids.push(json(await api.decide(customer, v.consent_version_id, d)).data.decision_id);
    }
    const rows = await t.db
      .selectFrom('decisions')
      .select(['id', 'decision', 'seq'])
      .where('tenant_id', '=', a.tenant.id)
      .where('subject_id', '=', await subjectOf(customer))
      .orderBy('seq')
      .execute();
    expect(rows.map((r) => r.id)).toEqual(ids);
    expect(rows.map((r) => r.decision)).toEqual([
      'given',
      'withdraw',
      'reject',
      'given',
      'withdraw',
    ]);
    expect(rows.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5]);
    const state = await t.db
      .selectFrom('customer_template_states')
      .selectAll()
      .where('subject_id', '=', await subjectOf(customer))
      .executeTakeFirstOrThrow();
    expect(state).toMatchObject({
      decision_count: 5,
      last_decision_id: ids[4],
      last_decision: 'withdraw',
    });
  });
});
