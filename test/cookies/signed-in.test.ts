/**
 * Signed-in visitors (docs/cookies.md, "Signed-in visitors"), on both stores: a token minted
 * through the API makes a visitor's choice the customer's too, committed in its evidence and
 * named in its receipt; the customer's newest choice answers the banner of another device; the
 * choice is in the customer's evidence pack, which verifies offline and is refused with another
 * customer's name; an expired, altered or other site's token records the choice all the same,
 * the visitor's alone; the log's audit rebuilds a linked leaf; erasing the customer unties them.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { strToU8, unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { auditLog } from '../../src/decision-log/audit.js';
import { eraseCustomer } from '../../src/erasure/service.js';
import {
  packNoteText,
  parseSignerKey,
  parseVerifierKey,
  signNote,
  verifyEvidencePack,
  verifyReceipt,
} from '../../src/proof/index.js';
import { expectErrorShape, json, startTestApp, type TestApp, testLogKeys } from '../helpers/app.js';
import {
  mintCustomerToken,
  type PublishedSystem,
  postChoice,
  seedPublishedSystem,
} from '../helpers/cookies.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { must } from '../proof/fixtures.js';

const origin = 'https://www.bank.example';
const request = { origin, userAgent: 'Browser/1.0' };
const logVerifier = must(parseVerifierKey(testLogKeys.verifierKey));
const all = {
  necessary: true,
  analytics: true,
  marketing: true,
  functional: true,
  personalization: true,
};
const none = {
  necessary: true,
  analytics: false,
  marketing: false,
  functional: false,
  personalization: false,
};
const actor = { actorKind: 'operator', actor: 'test', ip: 'local', userAgent: null } as const;

/** That the answer is the catalogue's error of this status and code. */
function refused(response: LightMyRequestResponse, status: number, code: string): void {
  expect(response.statusCode, response.body).toBe(status);
  expect(expectErrorShape(response).code).toBe(code);
}

/** SHA-256("subject/v1\n" || salt || customer id), base64: docs/proof.md, computed here. */
const commitmentOf = (salt: string, customerId: string) =>
  createHash('sha256')
    .update('subject/v1\n')
    .update(Buffer.from(salt, 'base64'))
    .update(customerId, 'utf8')
    .digest('base64');

describe.each(stores)('signed-in visitors on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;
  let b: SeededTenant;
  let site: PublishedSystem;
  let other: PublishedSystem;
  const customer = 'mali.signed-in-4a1e@example.test';

  beforeAll(async () => {
    t = await startTestApp(store, { LOG_INTEGRATE_INTERVAL_MS: '60000' });
    a = await seedTenant(t.db);
    b = await seedTenant(t.db);
    site = await seedPublishedSystem(t.db, a.tenant.id);
    other = await seedPublishedSystem(t.db, a.tenant.id);
  });
  afterAll(async () => t?.close());

  const askCustomerChoice = (token: unknown, scope = site.scope, from = origin) =>
    t.app.inject({
      method: 'POST',
      url: `/cookies/v1/${scope}/customer-choice`,
      headers: { origin: from, 'content-type': 'text/plain;charset=UTF-8' },
      payload: JSON.stringify({ customer_token: token }),
    });
  const choose = async (categories: Record<string, boolean>, customerToken?: string) => {
    const visitorId = randomUUID();
    const method = categories.analytics ? 'accept-all' : 'reject-all';
    const response = await t.app.inject({
      method: 'POST',
      url: `/cookies/v1/${site.scope}/decisions`,
      headers: { origin, 'content-type': 'text/plain;charset=UTF-8' },
      payload: JSON.stringify({
        event_id: randomUUID(),
        visitor_id: visitorId,
        configuration_id: site.configurationId,
        configuration_version: site.version,
        method,
        categories,
        locale: 'en',
        ...(customerToken === undefined ? {} : { customer_token: customerToken }),
      }),
    });
    expect(response.statusCode, response.body).toBe(201);
    const data = json(response).data as {
      decision_id: string;
      decided_at: string;
      customer_linked?: boolean;
    };
    return { visitorId, ...data };
  };
  const receipt = async (decisionId: unknown) => {
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/v1/cookie-decisions/${decisionId}/receipt?wait=true`,
      headers: a.headers,
    });
    expect(response.statusCode, response.body).toBe(200);
    return json(response).data;
  };
  const pack = (who: string) =>
    t.app.inject({
      method: 'GET',
      url: `/api/v1/customers/${encodeURIComponent(who)}/evidence`,
      headers: a.headers,
    });

  it('mints a token that says nothing readable, for one system or all; a scope not the tenant’s is 400 1001', async () => {
    const minted = await mintCustomerToken(t.app, a.headers, customer, { ttl_seconds: 600 });
    // Compact JWE: five base64url parts, the customer id nowhere in them.
    expect(minted.token.split('.')).toHaveLength(5);
    expect(
      Buffer.from(minted.token.replace(/\./g, ''), 'base64url').toString('latin1'),
    ).not.toContain('mali');
    const left = Date.parse(minted.expires_at) - Date.now();
    expect(left).toBeGreaterThan(500_000);
    expect(left).toBeLessThanOrEqual(600_000);
    const foreign = await t.app.inject({
      method: 'POST',
      url: `/api/v1/customers/${encodeURIComponent(customer)}/cookie-tokens`,
      headers: { ...b.headers, 'content-type': 'application/json' },
      payload: JSON.stringify({ system: site.scope }),
    });
    refused(foreign, 400, '1001');
    expect(json(foreign).details).toEqual([
      { field: 'body.system', issue: 'is not the scope of one of your cookie systems' },
    ]);
    const tooLong = await t.app.inject({
      method: 'POST',
      url: `/api/v1/customers/${encodeURIComponent(customer)}/cookie-tokens`,
      headers: { ...a.headers, 'content-type': 'application/json' },
      payload: JSON.stringify({ ttl_seconds: 86_401 }),
    });
    refused(tooLong, 400, '1001');
    const noKey = await t.app.inject({
      method: 'POST',
      url: `/api/v1/customers/${encodeURIComponent(customer)}/cookie-tokens`,
    });
    refused(noKey, 401, '1002');
  });

  it('a choice with the token is the customer’s: linked, listed by customer, its evidence naming them', async () => {
    const { token } = await mintCustomerToken(t.app, a.headers, customer);
    const made = await choose(none, token);
    expect(made.customer_linked).toBe(true);
    const listed = await t.app.inject({
      method: 'GET',
      url: `/api/v1/cookie-decisions?customer_id=${encodeURIComponent(customer)}`,
      headers: a.headers,
    });
    expect(listed.statusCode, listed.body).toBe(200);
    expect(
      json(listed).data.decisions.map((d: Record<string, unknown>) => [d.decision_id, d.signed_in]),
    ).toEqual([[made.decision_id, true]]);
    const proof = await receipt(made.decision_id);
    const { customer: opened } = proof.opening;
    expect(Object.keys(opened).sort()).toEqual(['commitment', 'subject_salt']);
    expect(opened.commitment).toBe(commitmentOf(opened.subject_salt, customer));
    expect(verifyReceipt(proof, [logVerifier], registry.formats)).toMatchObject({ ok: true });
    // The commitment is in the leaf's evidence: a receipt without it, or with another, fails.
    const { customer: _, ...unlinked } = proof.opening;
    expect(verifyReceipt({ ...proof, opening: unlinked }, [logVerifier], registry.formats).ok).toBe(
      false,
    );
    const swapped = { ...opened, commitment: commitmentOf(opened.subject_salt, 'someone-else') };
    expect(
      verifyReceipt(
        { ...proof, opening: { ...proof.opening, customer: swapped } },
        [logVerifier],
        registry.formats,
      ).ok,
    ).toBe(false);
  });

  it('answers the banner of another device with the customer’s newest choice on that system', async () => {
    const { token } = await mintCustomerToken(t.app, a.headers, customer, { system: site.scope });
    const newest = await choose(all, token);
    const answered = await askCustomerChoice(token);
    expect(answered.statusCode, answered.body).toBe(200);
    expect(answered.headers['access-control-allow-origin']).toBe(origin);
    expect(answered.headers['cache-control']).toBe('no-store');
    const { choice } = json(answered).data;
    expect(choice).toMatchObject({
      decision_id: newest.decision_id,
      decided_at: newest.decided_at,
      configuration_id: site.configurationId,
      configuration_version: site.version,
      method: 'accept-all',
      categories: all,
    });
    expect(choice.fingerprint).toMatch(/^[0-9a-f]{16,}$/);
    // The other system has no choice of theirs; a token bound to the first does not open there.
    const anyTokenOfTheTenant = (await mintCustomerToken(t.app, a.headers, customer)).token;
    const elsewhere = await askCustomerChoice(anyTokenOfTheTenant, other.scope);
    expect(elsewhere.statusCode, elsewhere.body).toBe(200);
    expect(json(elsewhere).data).toEqual({ choice: null });
    refused(await askCustomerChoice(token, other.scope), 401, '1002');
    // A customer never seen: no choice, and nothing made for them by asking.
    const stranger = (await mintCustomerToken(t.app, a.headers, 'never.seen@example.test')).token;
    expect(json(await askCustomerChoice(stranger)).data).toEqual({ choice: null });
    expect((await pack('never.seen@example.test')).statusCode).toBe(404);
  });

  it('refuses the question for an altered token, another tenant’s, another origin, or no token', async () => {
    const { token } = await mintCustomerToken(t.app, a.headers, customer);
    const altered = `${token.slice(0, -3)}${token.endsWith('AAA') ? 'BBB' : 'AAA'}`;
    refused(await askCustomerChoice(altered), 401, '1002');
    const theirs = (await mintCustomerToken(t.app, b.headers, customer)).token;
    refused(await askCustomerChoice(theirs), 401, '1002');
    refused(await askCustomerChoice(token, site.scope, 'https://evil.example'), 403, '1003');
    refused(await askCustomerChoice(''), 400, '1001');
    refused(await askCustomerChoice(42), 400, '1001');
  });

  it('records a choice with an expired, altered or other tenant’s token all the same, the visitor’s alone', async () => {
    const seen = 'kanda.unlinked-77@example.test';
    const { token } = await mintCustomerToken(t.app, a.headers, seen, { ttl_seconds: 60 });
    const [head, key, iv, text, tag] = token.split('.') as [string, string, string, string, string];
    const flipped = `${tag.startsWith('A') ? 'B' : 'A'}${tag.slice(1)}`;
    const tokens = [
      [head, key, iv, text, flipped].join('.'),
      (await mintCustomerToken(t.app, b.headers, seen)).token,
      'not-a-token',
    ];
    for (const bad of tokens) {
      const made = await choose(none, bad);
      expect(made.customer_linked, bad).toBe(false);
      expect((await receipt(made.decision_id)).opening.customer).toBeUndefined();
    }
    // Nothing of the customer was made: they have no record, so no pack.
    expect((await pack(seen)).statusCode).toBe(404);
    // A choice without a token answers exactly as before: no `customer_linked`.
    expect(Object.keys(await choose(none))).toEqual(['visitorId', 'decision_id', 'decided_at']);
  });

  it('puts the choices in the customer’s evidence pack, which verifies, and fails with another customer’s name', async () => {
    const packed = 'niran.pack-5c@example.test';
    const { token } = await mintCustomerToken(t.app, a.headers, packed);
    const first = await choose(none, token);
    const second = await postChoice(
      t.app,
      site,
      {
        visitorId: randomUUID(),
        method: 'accept-all',
        categories: all,
        locale: 'en',
        customerToken: token,
      },
      request,
    );
    await choose(all); // someone else's, anonymous: not in the pack
    const response = await pack(packed);
    expect(response.statusCode, response.body).toBe(200);
    const files = unzipSync(response.rawPayload);
    const records = Object.keys(files).filter((p) => p.startsWith('records/'));
    expect(records.sort()).toEqual(
      [
        `records/cookie-decisions/${first.decision_id}.json`,
        `records/cookie-decisions/${second.decision_id}.json`,
      ].sort(),
    );
    const manifest = JSON.parse(Buffer.from(files['manifest.json'] as Uint8Array).toString());
    expect(manifest.counts['cookie-decisions']).toBe(2);
    const asFiles = (entries: Record<string, Uint8Array>) => new Map(Object.entries(entries));
    expect(verifyEvidencePack(asFiles(files), [logVerifier], registry.formats)).toMatchObject({
      valid: true,
      verified: { 'cookie-decisions': 2 },
    });
    // The same files under another customer's name, signed again with the log's own key: the
    // cookie receipts do not open to that name.
    const renamed = strToU8(
      `${JSON.stringify({ ...manifest, customer_id: 'impostor@example.test' }, null, 2)}\n`,
    );
    const signer = must(parseSignerKey(testLogKeys.signerKey));
    const resigned = signNote(
      packNoteText(manifest.checkpoint.origin, createHash('sha256').update(renamed).digest('hex')),
      [signer],
    );
    const forged = verifyEvidencePack(
      asFiles({ ...files, 'manifest.json': renamed, 'manifest.sig': strToU8(resigned) }),
      [logVerifier],
      registry.formats,
    );
    expect(forged.valid).toBe(false);
    expect(forged.failures).toContainEqual({
      file: `records/cookie-decisions/${first.decision_id}.json`,
      reason: "its opening does not name the pack's customer",
    });
  });

  it('the log’s audit rebuilds a linked choice’s leaf, and finds one whose customer was changed in the store', async () => {
    expect(await auditLog(t.db, t.vault, registry, a.tenant.id)).toMatchObject({ ok: true });
    const { token } = await mintCustomerToken(t.app, a.headers, customer);
    const made = await choose(all, token);
    await receipt(made.decision_id);
    const row = await t.db
      .selectFrom('cookie_decisions')
      .select(['customer', 'customer_subject_id'])
      .where('id', '=', made.decision_id as string)
      .executeTakeFirstOrThrow();
    const setCustomer = (value: string | null) =>
      t.db
        .updateTable('cookie_decisions')
        .set({ customer: value })
        .where('id', '=', made.decision_id as string)
        .execute();
    await setCustomer(null);
    try {
      const audit = await auditLog(t.db, t.vault, registry, a.tenant.id);
      expect(audit.ok).toBe(false);
      expect(JSON.stringify(audit.findings)).toContain(made.decision_id as string);
    } finally {
      await setCustomer(row.customer);
    }
    expect(await auditLog(t.db, t.vault, registry, a.tenant.id)).toMatchObject({ ok: true });
  });

  it('erasing the customer unties them: no pack, the receipt keeps the commitment without the salt, and still verifies', async () => {
    const leaving = 'somchai.erased-3d@example.test';
    const { token } = await mintCustomerToken(t.app, a.headers, leaving);
    const made = await choose(none, token);
    expect((await receipt(made.decision_id)).opening.customer.subject_salt).toEqual(
      expect.any(String),
    );
    expect((await pack(leaving)).statusCode).toBe(200);
    await eraseCustomer(t.db, t.vault, registry, a.tenant.id, leaving, actor);
    expect((await pack(leaving)).statusCode).toBe(404);
    expect(json(await askCustomerChoice(token)).data).toEqual({ choice: null });
    const after = await receipt(made.decision_id);
    expect(Object.keys(after.opening.customer)).toEqual(['commitment']);
    // The visitor is still the visitor: their own id opens their part of the leaf.
    expect(after.opening.visitor_id).toBe(made.visitorId);
    expect(verifyReceipt(after, [logVerifier], registry.formats)).toMatchObject({ ok: true });
    expect(await auditLog(t.db, t.vault, registry, a.tenant.id)).toMatchObject({ ok: true });
  });
});
