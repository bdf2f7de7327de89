/**
 * Explicit consent for sensitive data (PDPA section 26; docs/pdpa.md), on both stores: a
 * template that covers sensitive data refuses a `given` without the explicit act, storing
 * nothing; with it, the act is sealed with the decision's evidence, committed in its leaf,
 * shown in the receipt's opening and checked offline. The evidence commitment's reference value
 * was computed from docs/proof.md alone (Python: SHA-256 of "evidence/v1\n" || salt || JSON).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { auditLog } from '../../src/decision-log/audit.js';
import { evidenceCommitment, parseVerifierKey, verifyReceipt } from '../../src/proof/index.js';
import { changeDataCategoriesAs, getTemplateByCode } from '../../src/templates/index.js';
import { expectErrorShape, json, startTestApp, type TestApp, testLogKeys } from '../helpers/app.js';
import { runCli } from '../helpers/process.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { must } from '../proof/fixtures.js';

const verifier = must(parseVerifierKey(testLogKeys.verifierKey));
const explicit = {
  method: 'separate-tick',
  text_shown: 'I consent to the bank processing my health data.',
};

describe('the evidence commitment of an explicit act', () => {
  it('is the documented value: the act enters the evidence JSON as "explicit", keys sorted', () => {
    expect(
      evidenceCommitment('EBESExQVFhcYGRobHB0eHw==', {
        apiKeyId: '0190e8a0-0000-7000-8000-0000000000aa',
        ip: '192.0.2.10',
        userAgent: 'Mozilla/5.0 (X11)',
        explicit: { method: 'separate-tick', text_shown: explicit.text_shown },
      }),
    ).toBe('UaM/7qw/VEqrtxHBgHM7mF0TkhS5DJlSO0RihJx3xOo=');
  });
});

describe.each(stores)('explicit consent for sensitive data on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let versionId: string;
  let code: string;
  const dir = mkdtempSync(join(tmpdir(), 'sensitive-'));
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
    // Set before any request reads the template, so no cached answer predates it.
    await t.db
      .transaction()
      .execute(async (trx) =>
        changeDataCategoriesAs(trx, actor(), await getTemplateByCode(trx, a.tenant.id, code), [
          'health',
          'biometric',
        ]),
      );
  });
  afterAll(async () => {
    await t.close();
  });

  const decide = (customer: string, body: Record<string, unknown>) =>
    t.app.inject({
      method: 'POST',
      url: `/api/v1/customers/${customer}/consents/decisions`,
      headers: a.headers,
      payload: { consent_version_id: versionId, ...body },
    });
  const storedFor = async () =>
    Number(
      (
        await t.db
          .selectFrom('decisions')
          .select((eb) => eb.fn.countAll<number | string>().as('n'))
          .where('tenant_id', '=', a.tenant.id)
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('refuses a given without the explicit act, 409 1005 naming the rule, and stores nothing', async () => {
    const before = await storedFor();
    const refused = await decide('c-sens-1', { decision: 'given' });
    expect(refused.statusCode).toBe(409);
    expect(expectErrorShape(refused)).toEqual({
      code: '1005',
      message: 'Explicit consent is required: this template covers sensitive data.',
    });
    expect(await storedFor()).toBe(before);
    // A reject needs no explicit act.
    expect((await decide('c-sens-1', { decision: 'reject' })).statusCode).toBe(201);
  });

  it('refuses a malformed explicit act with 400 1001', async () => {
    for (const bad of [
      { method: 'nod', text_shown: 'x' },
      { method: 'signature', text_shown: '' },
      { method: 'signature' },
      { ...explicit, extra: 1 },
      'yes',
    ]) {
      const answer = await decide('c-sens-2', { decision: 'given', explicit: bad });
      expect(answer.statusCode, JSON.stringify(bad)).toBe(400);
      expect(expectErrorShape(answer).code).toBe('1001');
    }
  });

  it("records a given with the act: the answer is the seed's D, the receipt's opening shows the act and verifies", async () => {
    const answer = await decide('c-sens-3', { decision: 'given', explicit });
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
    const id = json(answer).data.decision_id;
    const receiptAnswer = await t.app.inject({
      method: 'GET',
      url: `/api/v1/decisions/${id}/receipt?wait=true`,
      headers: a.headers,
    });
    expect(receiptAnswer.statusCode, receiptAnswer.body).toBe(200);
    const receipt = json(receiptAnswer).data;
    expect(receipt.opening.explicit).toEqual(explicit);
    expect(must(verifyReceipt(receipt, [verifier], registry.formats)).opened).toBe(true);

    const file = join(dir, `receipt-${store.name}.json`);
    writeFileSync(file, receiptAnswer.body);
    const accepted = await runCli(['verify-receipt', file, '--key', testLogKeys.verifierKey], {});
    expect(accepted.code, accepted.stderr).toBe(0);
    // Another text shown, or no act at all, does not open the leaf's evidence commitment.
    for (const opening of [
      { ...receipt.opening, explicit: { ...explicit, text_shown: 'I consent.' } },
      { ...receipt.opening, explicit: undefined },
    ]) {
      const tampered = join(dir, `tampered-${store.name}.json`);
      writeFileSync(tampered, JSON.stringify({ data: { ...receipt, opening } }));
      const refused = await runCli(
        ['verify-receipt', tampered, '--key', testLogKeys.verifierKey],
        {},
      );
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('the evidence and salt do not open');
    }
    // The log's audit rebuilds the leaf with the act from the sealed fields.
    expect(await auditLog(t.db, t.vault, registry, a.tenant.id)).toMatchObject({
      ok: true,
      findings: [],
    });
  });

  it('a category not in the list is refused naming data_categories; none clears them', async () => {
    const template = await getTemplateByCode(t.db, a.tenant.id, code);
    await expect(
      t.db
        .transaction()
        .execute((trx) => changeDataCategoriesAs(trx, actor(), template, ['health', 'shoe-size'])),
    ).rejects.toMatchObject({
      code: '1001',
      details: [{ field: 'data_categories', issue: expect.stringContaining('shoe-size') }],
    });
    const audited = await t.db
      .selectFrom('audit_log')
      .select('details')
      .where('tenant_id', '=', a.tenant.id)
      .where('action', '=', 'template.changed')
      .execute();
    expect(audited.map((row) => JSON.parse(row.details ?? '{}'))).toEqual([
      { data_categories: { from: [], to: ['health', 'biometric'] } },
    ]);
  });
});
