import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { personalReader } from '../../src/subjects/service.js';
import type { PublishedVersion } from '../../src/templates/schemas.js';
import { json, startTestApp, subjectIdOf, type TestApp } from '../helpers/app.js';
import { expectError } from '../helpers/http.js';
import { sealedAsBase64 } from '../helpers/sealed.js';
import { publish, type SeededTenant, seedTemplate, seedTenant, unique } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';

type DecisionValue = 'given' | 'reject' | 'withdraw';
const decisionFields = [
  'consent_version_id',
  'customer_id',
  'decided_at',
  'decision',
  'decision_id',
  'template_code',
  'version',
];

interface Sent {
  customerId: string;
  version: PublishedVersion;
  decision: DecisionValue;
  response: LightMyRequestResponse;
}

describe.each(stores)('concurrent decisions on $name', (store) => {
  let t: TestApp;
  let tenant: SeededTenant;
  /** allow_reconsent: true */
  let open: PublishedVersion;
  /** allow_reconsent: false */
  let strict: PublishedVersion;
  /** Every 201 answer of this file, by decision id. */
  const created = new Map<string, Sent>();

  beforeAll(async () => {
    t = await startTestApp(store);
    tenant = await seedTenant(t.db);
    const openCode = await seedTemplate(t.db, tenant.tenant.id);
    open = await publish(t.db, tenant.tenant.id, openCode, { allow_reconsent: true });
    const strictCode = await seedTemplate(t.db, tenant.tenant.id);
    strict = await publish(t.db, tenant.tenant.id, strictCode, { allow_reconsent: false });
  });
  afterAll(async () => {
    await t?.close();
  });

  async function decide(
    customerId: string,
    version: PublishedVersion,
    decision: DecisionValue,
    headers: Record<string, string> = {},
  ): Promise<Sent> {
    const response = await t.app.inject({
      method: 'POST',
      url: `/api/v1/customers/${customerId}/consents/decisions`,
      headers: { ...tenant.headers, ...headers },
      payload: { consent_version_id: version.consent_version_id, decision },
    });
    return { customerId, version, decision, response };
  }

  /** The random id the store knows the customer by; throws when it has none. */
  async function subjectOf(customerId: string): Promise<string> {
    const id = await subjectIdOf(t, tenant.tenant.id, customerId);
    if (id === undefined) throw new Error(`no subject for customer ${customerId}`);
    return id;
  }

  /** Every answer is 201, 200 or 409 with the right shape; never anything else, never a 5xx. */
  function checkAnswers(sent: Sent[]): { created: number; same: number; refused: number } {
    const counts = { created: 0, same: 0, refused: 0 };
    for (const s of sent) {
      const { response } = s;
      expect(response.statusCode, response.body).toBeLessThan(500);
      if (response.statusCode === 409) {
        const body = expectError(response, 409, '1005');
        expect(['Nothing to withdraw.', 'Re-consent is not allowed for this version.']).toContain(
          body.message,
        );
        counts.refused += 1;
        continue;
      }
      expect([200, 201], response.body).toContain(response.statusCode);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      const body = json(response);
      expect(Object.keys(body)).toEqual(['data']);
      expect(Object.keys(body.data).sort()).toEqual(decisionFields);
      expect(body.data).toMatchObject({
        customer_id: s.customerId,
        consent_version_id: s.version.consent_version_id,
        template_code: s.version.template_code,
        version: s.version.version,
        decision: s.decision,
      });
      if (response.statusCode === 201) {
        expect(created.has(body.data.decision_id)).toBe(false);
        created.set(body.data.decision_id, s);
        counts.created += 1;
      } else {
        counts.same += 1;
      }
    }
    return counts;
  }

  /**
   * The store after the storm: one row per 201 answer and no other, and for every customer and
   * template the state rows point at the latest decision and count them all.
   */
  async function checkStore(customers: string[]): Promise<void> {
    // A customer whose every request was refused has no subject, and so no rows.
    const customerOf = new Map<string, string>();
    for (const customer of customers) {
      const id = await subjectIdOf(t, tenant.tenant.id, customer);
      if (id !== undefined) customerOf.set(id, customer);
    }
    const subjectIds = [...customerOf.keys()];
    expect(subjectIds.length).toBeGreaterThan(0);
    const rows = await sealedAsBase64(
      t.db,
      await t.db
        .selectFrom('decisions')
        .selectAll()
        .where('tenant_id', '=', tenant.tenant.id)
        .where('subject_id', 'in', subjectIds)
        .execute(),
    );
    const expectedIds = [...created.entries()]
      .filter(([, s]) => customers.includes(s.customerId))
      .map(([id]) => id)
      .sort();
    expect(rows.map((r) => r.id).sort()).toEqual(expectedIds);
    // Each row keeps its customer's id, sealed under that customer's subject.
    const opened = await personalReader(t.db, t.vault, tenant.tenant.id)(rows);
    expect(opened.map((r) => r.personal?.customer_id)).toEqual(
      rows.map((r) => customerOf.get(r.subject_id)),
    );

    const byTemplate = new Map<string, typeof rows>();
    const byVersion = new Map<string, typeof rows>();
    for (const row of rows) {
      const tKey = `${row.subject_id}\u0000${row.template_id}`;
      const vKey = `${row.subject_id}\u0000${row.consent_version_id}`;
      byTemplate.set(tKey, [...(byTemplate.get(tKey) ?? []), row]);
      byVersion.set(vKey, [...(byVersion.get(vKey) ?? []), row]);
    }

    const templateStates = await t.db
      .selectFrom('customer_template_states')
      .selectAll()
      .where('subject_id', 'in', subjectIds)
      .execute();
    expect(templateStates).toHaveLength(byTemplate.size);
    for (const state of templateStates) {
      const history = (byTemplate.get(`${state.subject_id}\u0000${state.template_id}`) ?? []).sort(
        (a, b) => a.seq - b.seq,
      );
      expect(history.map((r) => r.seq)).toEqual(history.map((_r, i) => i + 1));
      const latest = history.at(-1);
      expect(latest).toBeDefined();
      expect(state.decision_count).toBe(history.length);
      expect(state.last_decision_id).toBe(latest?.id);
      expect(state.last_decision).toBe(latest?.decision);
      expect(state.last_consent_version_id).toBe(latest?.consent_version_id);
      expect(state.last_decided_at).toBe(latest?.decided_at);
      // Time order is history order, and every withdraw follows a given (section 5).
      history.forEach((row, i) => {
        const previous = history[i - 1];
        if (previous) expect(row.decided_at >= previous.decided_at).toBe(true);
        if (row.decision === 'withdraw') expect(previous?.decision).toBe('given');
      });
    }

    const versionStates = await t.db
      .selectFrom('customer_version_states')
      .selectAll()
      .where('subject_id', 'in', subjectIds)
      .execute();
    expect(versionStates).toHaveLength(byVersion.size);
    for (const state of versionStates) {
      const history = (
        byVersion.get(`${state.subject_id}\u0000${state.consent_version_id}`) ?? []
      ).sort((a, b) => a.seq - b.seq);
      expect(state.last_decision_id).toBe(history.at(-1)?.id);
      expect(state.last_decision).toBe(history.at(-1)?.decision);
    }
  }

  it('200 concurrent decisions for 200 different customers are all 201 and all stored', async () => {
    const customers = Array.from({ length: 200 }, () => unique('many'));
    const sent = await Promise.all(customers.map((c) => decide(c, open, 'given')));
    const counts = checkAnswers(sent);
    expect(counts).toEqual({ created: 200, same: 0, refused: 0 });
    await checkStore(customers);
  });

  it('200 concurrent given/withdraw/reject for one customer (re-consent allowed) are 201 or 409 and the state ends on the latest', async () => {
    const customer = unique('one-open');
    const cycle: DecisionValue[] = ['given', 'withdraw', 'reject', 'withdraw', 'given'];
    const sent = await Promise.all(
      Array.from({ length: 200 }, (_v, i) => decide(customer, open, cycle[i % cycle.length]!)),
    );
    const counts = checkAnswers(sent);
    expect(counts.same).toBe(0);
    expect(counts.created + counts.refused).toBe(200);
    expect(counts.created).toBeGreaterThan(0);
    // Only a withdraw can be refused when re-consent is allowed.
    for (const s of sent) if (s.response.statusCode === 409) expect(s.decision).toBe('withdraw');
    await checkStore([customer]);
  });

  it('200 concurrent given/withdraw/reject for one customer (re-consent not allowed) are 201, 200 or 409 and the state ends on the latest', async () => {
    const customer = unique('one-strict');
    const cycle: DecisionValue[] = ['given', 'given', 'withdraw', 'reject', 'given', 'withdraw'];
    const sent = await Promise.all(
      Array.from({ length: 200 }, (_v, i) => decide(customer, strict, cycle[i % cycle.length]!)),
    );
    const counts = checkAnswers(sent);
    expect(counts.created + counts.same + counts.refused).toBe(200);
    // The first given is recorded; identical repeats answer 200 with a stored decision.
    expect(counts.created).toBeGreaterThan(0);
    const ids = new Set(created.keys());
    for (const s of sent) {
      if (s.response.statusCode === 200)
        expect(ids.has(json(s.response).data.decision_id)).toBe(true);
    }
    await checkStore([customer]);
  });

  it('200 concurrent mixed decisions over 20 customers and two templates keep every state consistent', async () => {
    const customers = Array.from({ length: 20 }, () => unique('mixed'));
    const values: DecisionValue[] = ['given', 'reject', 'withdraw'];
    const sent = await Promise.all(
      Array.from({ length: 200 }, (_v, i) =>
        decide(
          customers[i % customers.length]!,
          i % 3 === 0 ? strict : open,
          values[(i * 7) % values.length]!,
        ),
      ),
    );
    const counts = checkAnswers(sent);
    expect(counts.created + counts.same + counts.refused).toBe(200);
    await checkStore(customers);
  });

  it('concurrent pending reads during a storm of decisions all answer 200 with a consistent view', async () => {
    const customers = Array.from({ length: 10 }, () => unique('readers'));
    const writes = Array.from({ length: 100 }, (_v, i) =>
      decide(customers[i % customers.length]!, open, i % 2 === 0 ? 'given' : 'reject'),
    );
    const reads = Array.from({ length: 100 }, (_v, i) =>
      t.app.inject({
        method: 'GET',
        url: `/api/v1/customers/${customers[i % customers.length]}/consents/templates/${open.template_code}/pending`,
        headers: tenant.headers,
      }),
    );
    const [sent, pendings] = await Promise.all([Promise.all(writes), Promise.all(reads)]);
    checkAnswers(sent);
    for (const pending of pendings) {
      expect(pending.statusCode, pending.body).toBe(200);
      const data = json(pending).data;
      expect(typeof data.accepted).toBe('boolean');
      expect(data.accepted).toBe(data.decision !== null);
    }
    await checkStore(customers);
  });

  it('50 concurrent requests with the same Idempotency-Key and body store one decision and all get its id', async () => {
    const customer = unique('idem-same');
    const key = unique('key');
    const sent = await Promise.all(
      Array.from({ length: 50 }, () => decide(customer, open, 'given', { 'idempotency-key': key })),
    );
    for (const s of sent) {
      expect(s.response.statusCode, s.response.body).toBe(201);
    }
    const ids = new Set(sent.map((s) => json(s.response).data.decision_id as string));
    expect(ids.size).toBe(1);
    const bodies = new Set(sent.map((s) => s.response.body));
    expect(bodies.size).toBe(1);
    const rows = await t.db
      .selectFrom('decisions')
      .select(['id', 'idempotency_key'])
      .where('tenant_id', '=', tenant.tenant.id)
      .where('subject_id', '=', await subjectOf(customer))
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.id).toBe([...ids][0]);
    expect(rows[0]?.idempotency_key).toBe(key);
  });

  it('50 concurrent requests with the same Idempotency-Key for different customers store one decision; the others are 422 1010', async () => {
    const customers = Array.from({ length: 50 }, () => unique('idem-many'));
    const key = unique('key');
    const sent = await Promise.all(
      customers.map((c) => decide(c, open, 'given', { 'idempotency-key': key })),
    );
    const winners = sent.filter((s) => s.response.statusCode === 201);
    expect(winners).toHaveLength(1);
    for (const s of sent) {
      if (s.response.statusCode === 201) continue;
      expectError(s.response, 422, '1010', 'Idempotency key reused with a different request.');
    }
    const rows = await t.db
      .selectFrom('decisions')
      .select('id')
      .where('tenant_id', '=', tenant.tenant.id)
      .where('idempotency_key', '=', key)
      .execute();
    expect(rows.map((r) => r.id)).toEqual([json(winners[0]!.response).data.decision_id]);
  });

  it('50 concurrent requests with the same Idempotency-Key and customer but two bodies store one decision; same-body retries replay it, the others are 422', async () => {
    const customer = unique('idem-two');
    const key = unique('key');
    const sent = await Promise.all(
      Array.from({ length: 50 }, (_v, i) =>
        decide(customer, open, i % 2 === 0 ? 'given' : 'reject', { 'idempotency-key': key }),
      ),
    );
    const ok = sent.filter((s) => s.response.statusCode === 201);
    expect(ok.length).toBe(25);
    const ids = new Set(ok.map((s) => json(s.response).data.decision_id as string));
    expect(ids.size).toBe(1);
    const winner = ok[0]!.decision;
    for (const s of sent) {
      if (s.decision === winner) expect(s.response.statusCode).toBe(201);
      else expectError(s.response, 422, '1010');
    }
    const rows = await t.db
      .selectFrom('decisions')
      .select('id')
      .where('tenant_id', '=', tenant.tenant.id)
      .where('subject_id', '=', await subjectOf(customer))
      .execute();
    expect(rows.map((r) => r.id)).toEqual([...ids]);
  });

  it('after everything, the decisions table holds exactly one row per 201 answer', async () => {
    const total = await t.db
      .selectFrom('decisions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tenant_id', '=', tenant.tenant.id)
      .executeTakeFirstOrThrow();
    // The idempotency tests count their own rows; `created` holds every other 201.
    const idempotent = await t.db
      .selectFrom('decisions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tenant_id', '=', tenant.tenant.id)
      .where('idempotency_key', 'is not', null)
      .executeTakeFirstOrThrow();
    expect(Number(total.n) - Number(idempotent.n)).toBe(created.size);
  });
});
