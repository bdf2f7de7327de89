/**
 * Consent given by a representative (PDPA section 20; docs/pdpa.md), on both stores: a decision
 * may say who acted (the subject or a representative, with the basis stated); a template's rule
 * of who may decide for whom refuses a decision that breaks it, storing nothing; the act is
 * sealed with the decision's evidence, committed in its leaf, shown in the receipt's opening and
 * in the evidence pack, and checked offline. The evidence commitment's reference value was
 * computed from docs/proof.md alone (Python: SHA-256 of "evidence/v1\n" || salt || JSON with
 * sorted keys).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { auditLog } from '../../src/decision-log/audit.js';
import { eraseCustomer } from '../../src/erasure/index.js';
import {
  evidenceCommitment,
  parseVerifierKey,
  verifyEvidencePack,
  verifyReceipt,
} from '../../src/proof/index.js';
import {
  changeRepresentationAs,
  getTemplateByCode,
  parseRepresentation,
} from '../../src/templates/index.js';
import { expectErrorShape, json, startTestApp, type TestApp, testLogKeys } from '../helpers/app.js';
import { runCli } from '../helpers/process.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { bothPaths } from '../helpers/two-paths.js';
import { must } from '../proof/fixtures.js';

const verifier = must(parseVerifierKey(testLogKeys.verifierKey));

describe('the evidence commitment of who acted', () => {
  it('is the documented value: the act enters the evidence JSON as "acted_by", keys sorted', () => {
    expect(
      evidenceCommitment('EBESExQVFhcYGRobHB0eHw==', {
        apiKeyId: '0190e8a0-0000-7000-8000-0000000000aa',
        ip: '192.0.2.10',
        userAgent: 'Mozilla/5.0 (X11)',
        actedBy: {
          role: 'subject',
          co_consent: { role: 'parent', reference: 'parent-7731' },
          age_band: '10-19',
        },
      }),
    ).toBe('eOMD2lGEBv0dv0ClEkOoT3YU3wgC9YO+HcrQQmqy+WU=');
  });
});

describe('a rule of who may decide for whom, as the command line writes it', () => {
  it('reads BASIS=WHO pairs, none for no rule, and refuses what it does not know naming representation', () => {
    expect(
      parseRepresentation('under-10=representative, 10-19=subject-with-representative'),
    ).toEqual({ 'under-10': 'representative', '10-19': 'subject-with-representative' });
    expect(parseRepresentation('none')).toBeUndefined();
    for (const bad of ['under-12=subject', 'adult=parent', 'adult', 'adult=subject,adult=anyone']) {
      expect(() => parseRepresentation(bad), bad).toThrow(
        expect.objectContaining({
          code: '1001',
          details: [expect.objectContaining({ field: 'representation' })],
        }),
      );
    }
  });
});

describe.each(stores)('consent given by a representative on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let versionId: string;
  let code: string;
  let freeVersionId: string;
  const dir = mkdtempSync(join(tmpdir(), 'representation-'));
  const actor = () => ({
    tenantId: a.tenant.id,
    actorKind: 'operator' as const,
    actor: 'command line',
    ip: 'local',
    userAgent: null,
  });

  beforeAll(async () => {
    t = await startTestApp(store);
    a = await seedTenant(t.db);
    code = await seedTemplate(t.db, a.tenant.id);
    versionId = (await publish(t.db, a.tenant.id, code)).consent_version_id;
    const free = await seedTemplate(t.db, a.tenant.id);
    freeVersionId = (await publish(t.db, a.tenant.id, free)).consent_version_id;
    // Set before any request reads the template, so no cached answer predates it.
    await t.db
      .transaction()
      .execute(async (trx) =>
        changeRepresentationAs(
          trx,
          actor(),
          await getTemplateByCode(trx, a.tenant.id, code),
          parseRepresentation(
            'under-10=representative,10-19=subject-with-representative,adult=subject,court-order=representative',
          ),
        ),
      );
  });
  afterAll(async () => {
    await t.close();
  });

  const decide = (customer: string, body: Record<string, unknown>, version = versionId) =>
    t.app.inject({
      method: 'POST',
      url: `/api/v1/customers/${customer}/consents/decisions`,
      headers: a.headers,
      payload: { consent_version_id: version, ...body },
    });
  const receiptOf = async (id: string) => {
    const answer = await t.app.inject({
      method: 'GET',
      url: `/api/v1/decisions/${id}/receipt?wait=true`,
      headers: a.headers,
    });
    expect(answer.statusCode, answer.body).toBe(200);
    return json(answer).data;
  };
  const stored = async () =>
    Number(
      (
        await t.db
          .selectFrom('decisions')
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .where('tenant_id', '=', a.tenant.id)
          .executeTakeFirstOrThrow()
      ).n,
    );

  const byParent = { role: 'parent', reference: 'parent-1001', age_band: 'under-10' };
  const teenWithParent = {
    role: 'subject',
    age_band: '10-19',
    co_consent: { role: 'parent', reference: 'parent-7731' },
  };
  const byGuardian = { role: 'guardian', reference: 'guardian-55', court_order: 'Civil 1234/2568' };

  it("records a child's consent by a parent, a 15-year-old's with a parent's co-consent and an incapacitated person's by a guardian: the seed's D, receipts that show who acted and verify", async () => {
    for (const [customer, acted] of [
      ['child-under-10', byParent],
      ['teen-15', teenWithParent],
      ['ward-1', byGuardian],
    ] as const) {
      const answer = await decide(customer, { decision: 'given', acted_by: acted });
      expect(answer.statusCode, answer.body).toBe(201);
      expect(Object.keys(json(answer).data).sort()).toEqual([
        'consent_version_id',
        'customer_id',
        'decided_at',
        'decision',
        'decision_id',
        'template_code',
        'version',
      ]);
      const receipt = await receiptOf(json(answer).data.decision_id);
      expect(receipt.opening.acted_by).toEqual(acted);
      expect(must(verifyReceipt(receipt, [verifier], registry.formats)).opened).toBe(true);
      const pending = await t.app.inject({
        method: 'GET',
        url: `/api/v1/customers/${customer}/consents/templates/${code}/pending`,
        headers: a.headers,
      });
      expect(json(pending).data.accepted).toBe(true);
    }
  });

  it('refuses a decision that breaks the rule with 409 1005 naming the rule, and stores nothing', async () => {
    const before = await stored();
    for (const [body, message] of [
      [
        { decision: 'given', acted_by: { role: 'subject', age_band: 'under-10' } },
        "Refused by this template's rule for under-10: a representative decides.",
      ],
      [
        { decision: 'given', acted_by: { role: 'parent', reference: 'p-1', age_band: 'adult' } },
        "Refused by this template's rule for adult: the subject decides.",
      ],
      [
        { decision: 'given', acted_by: { role: 'subject', court_order: 'Civil 9/2568' } },
        "Refused by this template's rule for court-order: a representative decides.",
      ],
      [
        { decision: 'given' },
        "This template's rule needs acted_by: who acted, and the subject's age band or a court order.",
      ],
      [
        { decision: 'withdraw', acted_by: { role: 'subject', age_band: 'under-10' } },
        "Refused by this template's rule for under-10: a representative decides.",
      ],
    ] as const) {
      const refused = await decide('c-refused', body);
      expect(refused.statusCode, JSON.stringify(body)).toBe(409);
      expect(expectErrorShape(refused)).toEqual({ code: '1005', message });
    }
    expect(await stored()).toBe(before);
  });

  // Through Fastify and over the socket, where the hot path answers `pending`: alike to the byte.
  const pendingOf = async (customer: string) => {
    const answer = await bothPaths(
      t.app,
      `/api/v1/customers/${customer}/consents/templates/${code}/pending`,
      a.headers,
    );
    expect(answer.statusCode, answer.body).toBe(200);
    return json(answer).data;
  };
  const heldRows = (version = versionId) =>
    t.db
      .selectFrom('held_consent_acts')
      .select(['side', 'act'])
      .where('tenant_id', '=', a.tenant.id)
      .where('consent_version_id', '=', version)
      .execute();

  it("a 15-year-old's given alone is held, pending says the representative is missing; the parent's given records both acts", async () => {
    const customer = 'teen-apart';
    const decisionsBefore = await stored();
    const rowsBefore = (await heldRows()).length;
    const first = await decide(customer, {
      decision: 'given',
      acted_by: { role: 'subject', age_band: '10-19' },
    });
    expect(first.statusCode, first.body).toBe(202);
    const held = json(first).data;
    expect(held).toMatchObject({
      customer_id: customer,
      template_code: code,
      consent_version_id: versionId,
      decision: 'given',
      side: 'subject',
      missing: 'representative',
    });
    // Held for 30 days of 24 hours.
    expect(Date.parse(held.expires_at) - Date.parse(held.held_at)).toBe(30 * 86_400_000);
    expect(await stored()).toBe(decisionsBefore);
    expect((await heldRows()).length).toBe(rowsBefore + 1);
    // The act is sealed: neither the role nor the basis is in the row.
    expect(JSON.stringify(await heldRows())).not.toContain('10-19');
    const waiting = await pendingOf(customer);
    expect(waiting).toMatchObject({ accepted: false, decision: null, missing: 'representative' });

    const parent = { role: 'parent', reference: 'parent-2020', age_band: '10-19' };
    const second = await decide(customer, { decision: 'given', acted_by: parent });
    expect(second.statusCode, second.body).toBe(201);
    const receipt = await receiptOf(json(second).data.decision_id);
    expect(receipt.opening.acted_by).toEqual({
      ...parent,
      co_consent: { role: 'subject', at: held.held_at },
    });
    expect(must(verifyReceipt(receipt, [verifier], registry.formats)).opened).toBe(true);
    const done = await pendingOf(customer);
    expect(done.accepted).toBe(true);
    expect(done).not.toHaveProperty('missing');
    expect((await heldRows()).length).toBe(rowsBefore);
  });

  it('the act that completes a co-consent, sent again with its Idempotency-Key, replays its 201 and holds nothing', async () => {
    const customer = 'teen-retry';
    const subject = { role: 'subject', age_band: '10-19' };
    expect((await decide(customer, { decision: 'given', acted_by: subject })).statusCode).toBe(202);
    const rowsBefore = (await heldRows()).length;
    const parent = { role: 'parent', reference: 'parent-4040', age_band: '10-19' };
    const send = () =>
      t.app.inject({
        method: 'POST',
        url: `/api/v1/customers/${customer}/consents/decisions`,
        headers: { ...a.headers, 'idempotency-key': 'teen-retry-parent-1' },
        payload: { consent_version_id: versionId, decision: 'given', acted_by: parent },
      });
    const first = await send();
    expect(first.statusCode, first.body).toBe(201);
    const again = await send();
    expect(again.statusCode, again.body).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    expect((await heldRows()).length).toBe(rowsBefore - 1);
  });

  it("either side may act first: a parent's given is held for the subject's", async () => {
    const customer = 'teen-parent-first';
    const parent = { role: 'parent', reference: 'parent-3030', age_band: '10-19' };
    const first = await decide(customer, { decision: 'given', acted_by: parent });
    expect(first.statusCode, first.body).toBe(202);
    expect(json(first).data).toMatchObject({ side: 'representative', missing: 'subject' });
    expect((await pendingOf(customer)).missing).toBe('subject');
    const second = await decide(customer, {
      decision: 'given',
      acted_by: { role: 'subject', age_band: '10-19' },
    });
    expect(second.statusCode, second.body).toBe(201);
    const receipt = await receiptOf(json(second).data.decision_id);
    expect(receipt.opening.acted_by).toEqual({
      role: 'subject',
      age_band: '10-19',
      co_consent: { role: 'parent', reference: 'parent-3030', at: json(first).data.held_at },
    });
  });

  it('a reject by either side drops what was held; erasing the customer drops it too', async () => {
    const customer = 'teen-changes-mind';
    expect(
      (
        await decide(customer, {
          decision: 'given',
          acted_by: { role: 'subject', age_band: '10-19' },
        })
      ).statusCode,
    ).toBe(202);
    const rejected = await decide(customer, {
      decision: 'reject',
      acted_by: { role: 'subject', age_band: '10-19' },
    });
    expect(rejected.statusCode, rejected.body).toBe(201);
    expect((await pendingOf(customer)).missing).toBeUndefined();

    const erased = 'teen-erased';
    expect((await decide(erased, { decision: 'reject' }, freeVersionId)).statusCode).toBe(201);
    const before = (await heldRows()).length;
    expect(
      (
        await decide(erased, {
          decision: 'given',
          acted_by: { role: 'subject', age_band: '10-19' },
        })
      ).statusCode,
    ).toBe(202);
    expect((await heldRows()).length).toBe(before + 1);
    const erasure = await eraseCustomer(t.db, t.vault, registry, a.tenant.id, erased, actor());
    expect(erasure.erased).toBe(true);
    expect((await heldRows()).length).toBe(before);
  });

  it('a 15-year-old withdraws alone: declining or taking back needs no co-consent', async () => {
    const given = await decide('teen-16', { decision: 'given', acted_by: teenWithParent });
    expect(given.statusCode, given.body).toBe(201);
    const withdrawn = await decide('teen-16', {
      decision: 'withdraw',
      acted_by: { role: 'subject', age_band: '10-19' },
    });
    expect(withdrawn.statusCode, withdrawn.body).toBe(201);
    const receipt = await receiptOf(json(withdrawn).data.decision_id);
    expect(receipt.opening.acted_by).toEqual({ role: 'subject', age_band: '10-19' });
  });

  it('refuses a malformed act with 400 1001 naming the field, on any template', async () => {
    for (const [bad, field] of [
      [{ role: 'parent', age_band: 'under-10' }, 'acted_by.reference'],
      [{ role: 'subject' }, 'acted_by'],
      [{ ...teenWithParent, co_consent: { role: 'subject' } }, 'acted_by.co_consent'],
      [{ ...teenWithParent, co_consent: { role: 'guardian' } }, 'acted_by.co_consent.reference'],
    ] as const) {
      const answer = await decide('c-bad', { decision: 'given', acted_by: bad }, freeVersionId);
      expect(answer.statusCode, JSON.stringify(bad)).toBe(400);
      const body = expectErrorShape(answer);
      expect(body.code).toBe('1001');
      expect(JSON.stringify(body)).toContain(`"field":"${field}"`);
    }
    for (const bad of [
      { role: 'uncle', reference: 'u', age_band: 'adult' },
      { role: 'subject', age_band: '12' },
      { role: 'subject', age_band: 'adult', extra: 1 },
      { role: 'parent', reference: '', age_band: 'under-10' },
      'parent',
    ]) {
      const answer = await decide('c-bad', { decision: 'given', acted_by: bad }, freeVersionId);
      expect(answer.statusCode, JSON.stringify(bad)).toBe(400);
      expect(expectErrorShape(answer).code).toBe('1001');
    }
  });

  it('a template without a rule records who acted as stated, and a seed request as before', async () => {
    const acted = { role: 'authorised', reference: 'poa-88', age_band: 'adult' };
    const answer = await decide('c-free', { decision: 'given', acted_by: acted }, freeVersionId);
    expect(answer.statusCode, answer.body).toBe(201);
    expect((await receiptOf(json(answer).data.decision_id)).opening.acted_by).toEqual(acted);
    const plain = await decide('c-plain', { decision: 'given' }, freeVersionId);
    expect(plain.statusCode).toBe(201);
    expect((await receiptOf(json(plain).data.decision_id)).opening).not.toHaveProperty('acted_by');
  });

  it('a receipt whose act is changed no longer opens; the pack shows who acted and verifies; the audit is clean', async () => {
    const answer = await decide('teen-pack', { decision: 'given', acted_by: teenWithParent });
    const id = json(answer).data.decision_id;
    const receipt = await receiptOf(id);
    const file = join(dir, `receipt-${store.name}.json`);
    writeFileSync(file, JSON.stringify({ data: receipt }));
    const accepted = await runCli(['verify-receipt', file, '--key', testLogKeys.verifierKey], {});
    expect(accepted.code, accepted.stderr).toBe(0);
    for (const acted_by of [
      { ...teenWithParent, co_consent: undefined },
      { ...teenWithParent, age_band: 'adult' },
      undefined,
    ]) {
      const tampered = join(dir, `tampered-${store.name}.json`);
      writeFileSync(
        tampered,
        JSON.stringify({ data: { ...receipt, opening: { ...receipt.opening, acted_by } } }),
      );
      const refused = await runCli(
        ['verify-receipt', tampered, '--key', testLogKeys.verifierKey],
        {},
      );
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('the evidence and salt do not open');
    }
    const pack = await t.app.inject({
      method: 'GET',
      url: '/api/v1/customers/teen-pack/evidence',
      headers: a.headers,
    });
    expect(pack.statusCode, pack.body).toBe(200);
    const files = unzipSync(pack.rawPayload);
    expect(
      verifyEvidencePack(new Map(Object.entries(files)), [verifier], registry.formats),
    ).toMatchObject({ valid: true, failures: [] });
    const inPack = JSON.parse(Buffer.from(files[`records/decisions/${id}.json`] ?? []).toString());
    expect(inPack.opening.acted_by).toEqual(teenWithParent);
    // The receipt exports, as the API answers them, carry the act.
    const exported = async (format: string) => {
      const answer = await t.app.inject({
        method: 'GET',
        url: `/api/v1/decisions/${id}/receipt/${format}`,
        headers: a.headers,
      });
      expect(answer.statusCode, answer.body).toBe(200);
      return JSON.parse(answer.body);
    };
    expect((await exported('kantara')).consentLog.actedBy).toEqual(teenWithParent);
    expect((await exported('iso-27560'))['dpv:hasRecordOfActivity']['clog:actedBy']).toEqual(
      teenWithParent,
    );
    expect(await auditLog(t.db, t.vault, registry, a.tenant.id)).toMatchObject({
      ok: true,
      findings: [],
    });
  });

  it("the customer's history and as-of show who acted on the decisions that said, and nothing more on the rest", async () => {
    const customer = 'teen-history';
    const given = await decide(customer, { decision: 'given', acted_by: teenWithParent });
    expect(given.statusCode, given.body).toBe(201);
    const plain = await decide(customer, { decision: 'reject' }, freeVersionId);
    expect(plain.statusCode, plain.body).toBe(201);
    const history = await t.app.inject({
      method: 'GET',
      url: `/api/v1/customers/${customer}/consents`,
      headers: a.headers,
    });
    expect(history.statusCode, history.body).toBe(200);
    const entries = json(history).data.history as Array<Record<string, unknown>>;
    const byId = new Map(entries.map((entry) => [entry.decision_id, entry]));
    expect(byId.get(json(given).data.decision_id)?.acted_by).toEqual(teenWithParent);
    expect(byId.get(json(plain).data.decision_id)).not.toHaveProperty('acted_by');
    const asOf = await t.app.inject({
      method: 'GET',
      url: `/api/v1/customers/${customer}/consents/templates/${code}/as-of?at=${encodeURIComponent(new Date().toISOString())}`,
      headers: a.headers,
    });
    expect(asOf.statusCode, asOf.body).toBe(200);
    expect(json(asOf).data.decision.acted_by).toEqual(teenWithParent);
  });

  it('the rule is audited as a change of the template, from and to', async () => {
    const audited = await t.db
      .selectFrom('audit_log')
      .select('details')
      .where('tenant_id', '=', a.tenant.id)
      .where('action', '=', 'template.changed')
      .execute();
    expect(audited.map((row) => JSON.parse(row.details ?? '{}'))).toEqual([
      {
        representation: {
          from: 'none',
          to: 'under-10=representative,10-19=subject-with-representative,adult=subject,court-order=representative',
        },
      },
    ]);
  });
});
