import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { PublishedVersion } from '../../src/templates/schemas.js';
import { json, startTestApp, subjectIdOf, type TestApp } from '../helpers/app.js';
import { expectError } from '../helpers/http.js';
import { publish, type SeededTenant, seedTemplate, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';

/** Every refused request in this file names this customer, whom the store must never come to know. */
const refusedCustomer = 'bad-input-customer';
const unknownVersionId = '00000000-0000-4000-8000-000000000000';
const KiB = 1024;

function decisionsUrl(customerId: string): string {
  return `/api/v1/customers/${customerId}/consents/decisions`;
}

/** A JSON text of exactly `bytes` bytes: the given body plus an `extra` string to pad it. */
function paddedBody(body: Record<string, unknown>, bytes: number, field = 'extra'): string {
  const empty = JSON.stringify({ ...body, [field]: '' });
  const text = JSON.stringify({ ...body, [field]: 'x'.repeat(bytes - Buffer.byteLength(empty)) });
  expect(Buffer.byteLength(text)).toBe(bytes);
  return text;
}

describe.each(stores)('bad input on $name', (store) => {
  let t: TestApp;
  let tenant: SeededTenant;
  let other: SeededTenant;
  let code: string;
  let version: PublishedVersion;
  let otherVersion: PublishedVersion;
  let draftOnlyCode: string;
  let good: { consent_version_id: string; decision: string };
  /** Decisions in the store when the running test began, and the 201s it has seen since. */
  let storedBefore = 0;
  let acceptedInTest = 0;

  beforeAll(async () => {
    t = await startTestApp(store);
    [tenant, other] = await Promise.all([seedTenant(t.db), seedTenant(t.db)]);
    code = await seedTemplate(t.db, tenant.tenant.id);
    version = await publish(t.db, tenant.tenant.id, code);
    draftOnlyCode = await seedTemplate(t.db, tenant.tenant.id);
    const otherCode = await seedTemplate(t.db, other.tenant.id);
    otherVersion = await publish(t.db, other.tenant.id, otherCode);
    good = { consent_version_id: version.consent_version_id, decision: 'given' };
  });
  afterAll(async () => {
    await t?.close();
  });

  async function decisionCount(): Promise<number> {
    const all = await t.db
      .selectFrom('decisions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(all.n);
  }

  // Each test checks on its own that it stored nothing but one decision per 201 it saw, and that
  // the store does not know the customer of the refused requests (a subject comes only with a
  // first recorded decision): a failure here fails the test that ran, even when run alone.
  const knowsRefusedCustomer = async () => {
    const known = await Promise.all(
      [tenant, other].map((seeded) => subjectIdOf(t, seeded.tenant.id, refusedCustomer)),
    );
    return known.some((id) => id !== undefined);
  };
  let knewRefusedCustomer = false;
  beforeEach(async () => {
    acceptedInTest = 0;
    storedBefore = await decisionCount();
    knewRefusedCustomer = await knowsRefusedCustomer();
  });
  afterEach(async () => {
    expect(await decisionCount(), 'decisions stored by this test').toBe(
      storedBefore + acceptedInTest,
    );
    // Only the test that made the store know them fails, not every test after it.
    if (!knewRefusedCustomer) expect(await knowsRefusedCustomer()).toBe(false);
  });

  /** A POST of a decision with the tenant's key; `payload` is sent as it is when a string. */
  function post(
    payload: InjectOptions['payload'],
    options: { customer?: string; headers?: Record<string, string | string[]> } = {},
  ): Promise<LightMyRequestResponse> {
    return t.app.inject({
      method: 'POST',
      url: decisionsUrl(options.customer ?? refusedCustomer),
      headers: {
        ...tenant.headers,
        'content-type': 'application/json',
        ...options.headers,
      },
      payload,
    });
  }

  function accepted(response: LightMyRequestResponse): void {
    expect(response.statusCode, response.body).toBe(201);
    acceptedInTest += 1;
  }

  describe('malformed JSON', () => {
    const cases: [string, string][] = [
      ['truncated', '{"consent_version_id": "0000'],
      ['an object cut after a comma', '{"decision": "given",'],
      ['an object with trailing garbage', '{"decision": "given"}xyz'],
      ['two objects', '{"decision": "given"}{"decision": "given"}'],
      ['single-quoted', "{'decision': 'given'}"],
      ['an unquoted key', '{decision: "given"}'],
      ['a trailing comma', '{"decision": "given",}'],
      ['with a comment', '{"decision": "given" /* c */}'],
      ['NaN', '{"decision": NaN}'],
      ['bare text', 'given'],
      ['whitespace only', '   \n  '],
      ['an unclosed string', '"given'],
      ['invalid UTF-8 escapes', '{"decision": "\\uZZZZ"}'],
    ];
    it.each(cases)('when the body is %s, answers 400 1001', async (_label, payload) => {
      expectError(await post(payload), 400, '1001', 'Invalid request.');
    });

    it('when the body is empty with Content-Type application/json, answers 400 1001', async () => {
      expectError(await post(''), 400, '1001', 'Invalid request.');
      expectError(await post(undefined), 400, '1001', 'Invalid request.');
    });

    it.each([
      ['[]', '[]'],
      ['[{...}] (the right object inside an array)', 'array'],
      ['null', 'null'],
      ['a bare string', '"given"'],
      ['a number', '42'],
      ['true', 'true'],
    ])('when the body is %s, answers 400 1001', async (_label, payload) => {
      const text = payload === 'array' ? JSON.stringify([good]) : payload;
      expectError(await post(text), 400, '1001', 'Invalid request.');
    });

    it('when the body sets __proto__, answers 400 1001', async () => {
      const payload = `{"__proto__": {"decision": "given"}, "consent_version_id": "${version.consent_version_id}", "decision": "given"}`;
      expectError(await post(payload), 400, '1001');
    });

    it('when the body sets constructor.prototype, answers 400 1001', async () => {
      const payload = `{"constructor": {"prototype": {"x": 1}}, "consent_version_id": "${version.consent_version_id}", "decision": "given"}`;
      expectError(await post(payload), 400, '1001');
    });

    it('when the body is deeply nested arrays, answers 400 1001', async () => {
      expectError(await post(`${'['.repeat(5000)}${']'.repeat(5000)}`), 400, '1001');
    });
  });

  describe('repeated keys', () => {
    // A consent record must not depend on which of two values a parser keeps.
    const cases: [string, (id: string) => string][] = [
      [
        'decision twice, withdraw then given',
        (id) => `{"consent_version_id":"${id}","decision":"withdraw","decision":"given"}`,
      ],
      [
        'decision twice, given then reject',
        (id) => `{"consent_version_id":"${id}","decision":"given","decision":"reject"}`,
      ],
      [
        'decision twice with the same value',
        (id) => `{"consent_version_id":"${id}","decision":"given","decision":"given"}`,
      ],
      [
        'consent_version_id twice',
        (id) =>
          `{"consent_version_id":"${unknownVersionId}","consent_version_id":"${id}","decision":"given"}`,
      ],
      [
        'decision twice, once spelt with a \\u escape',
        (id) => `{"consent_version_id":"${id}","decision":"given","decisio\\u006e":"reject"}`,
      ],
      [
        'decision twice, with spaces and newlines between',
        (id) =>
          `{ "decision" : "given" ,\n "consent_version_id" : "${id}" ,\n "decision" : "given" }`,
      ],
    ];
    it.each(cases)(
      'when the body has %s, answers 400 1001 and records nothing',
      async (_label, text) => {
        const payload = text(version.consent_version_id);
        expect(() => JSON.parse(payload)).not.toThrow();
        expectError(await post(payload), 400, '1001', 'Invalid request.');
      },
    );

    it('when each key appears once, whatever the order and spacing, records the decision 201', async () => {
      const payload = `{ "decision" : "given" ,\n "consent_version_id" : "${version.consent_version_id}" }`;
      const response = await post(payload, { customer: 'repeat-free' });
      accepted(response);
      expect(json(response).data.decision).toBe('given');
    });
  });

  describe('unknown fields', () => {
    it('when the body has an unknown field, answers 400 1001 with details naming it', async () => {
      const body = expectError(await post({ ...good, extra: 1 }), 400, '1001');
      expect(body.details).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ field: expect.stringMatching(/(^|\.)extra$/) }),
        ]),
      );
    });

    it.each([
      ['customer_id', 'someone-else'],
      ['Decision', 'given'],
      ['decided_at', '2020-01-01T00:00:00.000Z'],
      ['decision_id', unknownVersionId],
      ['', 'empty name'],
    ])(
      'when the body also carries "%s", answers 400 1001 and stores nothing',
      async (field, value) => {
        const body = expectError(await post({ ...good, [field]: value }), 400, '1001');
        expect(body.details?.length ?? 0).toBeGreaterThan(0);
      },
    );

    it('when the body has several unknown fields, details name each of them', async () => {
      const body = expectError(await post({ ...good, one: 1, two: 2 }), 400, '1001');
      const fields = (body.details ?? []).map((d) => d.field);
      expect(fields.some((f) => /(^|\.)one$/.test(f))).toBe(true);
      expect(fields.some((f) => /(^|\.)two$/.test(f))).toBe(true);
    });
  });

  describe('wrong types and values', () => {
    const decisionValues: [string, unknown][] = [
      ['["given"]', ['given']],
      ['a number', 1],
      ['0', 0],
      ['true', true],
      ['false', false],
      ['null', null],
      ['an object', { value: 'given' }],
      ['"Given"', 'Given'],
      ['"GIVEN"', 'GIVEN'],
      ['" given"', ' given'],
      ['"given "', 'given '],
      ['"accept"', 'accept'],
      ['"withdrawn"', 'withdrawn'],
      ['""', ''],
    ];
    it.each(decisionValues)(
      'when decision is %s, answers 400 1001 naming decision',
      async (_label, value) => {
        const body = expectError(await post({ ...good, decision: value }), 400, '1001');
        expect((body.details ?? []).some((d) => /(^|\.)decision$/.test(d.field))).toBe(true);
      },
    );

    const versionIds: [string, () => unknown][] = [
      ['a number', () => 123],
      ['true', () => true],
      ['null', () => null],
      ['an array holding the id', () => [version.consent_version_id]],
      ['an object', () => ({ id: version.consent_version_id })],
      ['not a UUID', () => 'not-a-uuid'],
      ['empty', () => ''],
      ['a UUID without dashes', () => version.consent_version_id.replaceAll('-', '')],
      ['a UUID in braces', () => `{${version.consent_version_id}}`],
      ['a UUID with a trailing newline', () => `${version.consent_version_id}\n`],
      ['a UUID with a leading space', () => ` ${version.consent_version_id}`],
      ['a UUID with one more character', () => `${version.consent_version_id}0`],
      ['a UUID with a non-hex digit', () => `g${version.consent_version_id.slice(1)}`],
      ['an SQL fragment', () => "' OR 1=1 --"],
    ];
    it.each(versionIds)(
      'when consent_version_id is %s, answers 400 1001 naming consent_version_id',
      async (_label, value) => {
        const body = expectError(await post({ ...good, consent_version_id: value() }), 400, '1001');
        expect((body.details ?? []).some((d) => /(^|\.)consent_version_id$/.test(d.field))).toBe(
          true,
        );
      },
    );

    it('when both fields are missing, answers 400 1001 with details naming both', async () => {
      const body = expectError(await post({}), 400, '1001');
      const fields = (body.details ?? []).map((d) => d.field);
      expect(fields.some((f) => /(^|\.)consent_version_id$/.test(f))).toBe(true);
      expect(fields.some((f) => /(^|\.)decision$/.test(f))).toBe(true);
    });

    it('when decision is missing, answers 400 1001 naming decision', async () => {
      const body = expectError(
        await post({ consent_version_id: version.consent_version_id }),
        400,
        '1001',
      );
      expect((body.details ?? []).some((d) => /(^|\.)decision$/.test(d.field))).toBe(true);
    });

    it('when consent_version_id is missing, answers 400 1001 naming it', async () => {
      const body = expectError(await post({ decision: 'given' }), 400, '1001');
      expect((body.details ?? []).some((d) => /(^|\.)consent_version_id$/.test(d.field))).toBe(
        true,
      );
    });

    it('when a JSON text repeats a field, the refused value is not coerced', async () => {
      const payload = `{"consent_version_id": "${version.consent_version_id}", "decision": "given", "decision": 1}`;
      expectError(await post(payload), 400, '1001');
    });
  });

  describe('content types', () => {
    const body = () => JSON.stringify(good);
    it.each([
      ['text/plain', 'text/plain'],
      ['text/plain; charset=utf-8', 'text/plain; charset=utf-8'],
      ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded'],
      ['multipart/form-data', 'multipart/form-data; boundary=xyz'],
      ['application/xml', 'application/xml'],
      ['application/octet-stream', 'application/octet-stream'],
      ['text/json', 'text/json'],
    ])('when Content-Type is %s, answers 415 1007', async (_label, type) => {
      const response = await post(body(), { headers: { 'content-type': type } });
      expectError(response, 415, '1007', 'Unsupported media type.');
    });

    it('when a form-encoded body carries the right fields, answers 415 1007', async () => {
      const payload = `consent_version_id=${version.consent_version_id}&decision=given`;
      const response = await post(payload, {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expectError(response, 415, '1007');
    });

    it('when a multipart body carries the right fields, answers 415 1007', async () => {
      const payload =
        '--xyz\r\nContent-Disposition: form-data; name="consent_version_id"\r\n\r\n' +
        `${version.consent_version_id}\r\n` +
        '--xyz\r\nContent-Disposition: form-data; name="decision"\r\n\r\ngiven\r\n--xyz--\r\n';
      const response = await post(payload, {
        headers: { 'content-type': 'multipart/form-data; boundary=xyz' },
      });
      expectError(response, 415, '1007');
    });

    it('when the body is gzip-encoded (no decoding is offered), answers 400 1001 or 415 1007', async () => {
      const response = await post(gzipSync(body()), { headers: { 'content-encoding': 'gzip' } });
      if (response.statusCode === 415) expectError(response, 415, '1007');
      else expectError(response, 400, '1001');
    });

    it('when Content-Type is missing, answers 415 1007', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: decisionsUrl(refusedCustomer),
        headers: tenant.headers,
        payload: Buffer.from(body()),
      });
      expect(response.raw.req.headers['content-type']).toBeUndefined();
      expectError(response, 415, '1007');
    });

    it('when Content-Type is missing and there is no body, answers 415 1007', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: decisionsUrl(refusedCustomer),
        headers: tenant.headers,
      });
      expectError(response, 415, '1007');
    });

    it('when Content-Type is application/json; charset=utf-8, records the decision 201', async () => {
      const response = await post(body(), {
        customer: 'ct-charset',
        headers: { 'content-type': 'application/json; charset=utf-8' },
      });
      accepted(response);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(json(response).data.decision).toBe('given');
    });

    it('when Content-Type is Application/JSON (media types ignore case), records 201', async () => {
      accepted(
        await post(body(), {
          customer: 'ct-case',
          headers: { 'content-type': 'Application/JSON' },
        }),
      );
    });
  });

  describe('body size', () => {
    it('when the body is 16 KiB + 1 byte, answers 413 1006', async () => {
      const response = await post(paddedBody(good, 16 * KiB + 1));
      expectError(response, 413, '1006', 'Payload too large.');
    });

    it.each([64 * KiB, 1024 * KiB])('when the body is %i bytes, answers 413 1006', async (size) => {
      expectError(await post(paddedBody(good, size)), 413, '1006');
    });

    it('when the body is exactly 16 KiB with an unknown field, answers 400 1001 (not 413)', async () => {
      const body = expectError(await post(paddedBody(good, 16 * KiB)), 400, '1001');
      expect((body.details ?? []).some((d) => /(^|\.)extra$/.test(d.field))).toBe(true);
    });

    it('when the body is just under 16 KiB with an unknown field, answers 400 1001', async () => {
      expectError(await post(paddedBody(good, 16 * KiB - 100)), 400, '1001');
    });

    it('when the body is just under 16 KiB of malformed JSON, answers 400 1001', async () => {
      expectError(await post(`{"x": "${'y'.repeat(16 * KiB - 20)}`), 400, '1001');
    });

    it('when an oversized body is not JSON at all, is still refused before parsing (413 or 415)', async () => {
      const response = await post('x'.repeat(64 * KiB), {
        headers: { 'content-type': 'text/plain' },
      });
      expect([413, 415]).toContain(response.statusCode);
      expectError(response, response.statusCode, response.statusCode === 413 ? '1006' : '1007');
    });

    it('when Content-Length understates an oversized body, answers 413 1006', async () => {
      const response = await post(paddedBody(good, 20 * KiB), {
        headers: { 'content-length': '100' },
      });
      expectError(response, 413, '1006');
    });

    it('when Content-Length announces more than 16 KiB for a small body, answers 413 1006', async () => {
      const response = await post(JSON.stringify(good), {
        headers: { 'content-length': String(20 * KiB) },
      });
      expectError(response, 413, '1006');
    });

    it('when Content-Length does not match a small body, answers 400 1001', async () => {
      const response = await post(JSON.stringify(good), { headers: { 'content-length': '10' } });
      expectError(response, 400, '1001');
    });

    it('when an oversized body is streamed without Content-Length, answers 413 1006', async () => {
      const text = paddedBody(good, 40 * KiB);
      const chunks = [];
      for (let i = 0; i < text.length; i += 1000) chunks.push(Buffer.from(text.slice(i, i + 1000)));
      const response = await post(Readable.from(chunks));
      expect(response.raw.req.headers['content-length']).toBeUndefined();
      expectError(response, 413, '1006');
    });

    it('when a small body is streamed without Content-Length, records the decision 201', async () => {
      const response = await post(Readable.from([Buffer.from(JSON.stringify(good))]), {
        customer: 'streamed',
      });
      accepted(response);
    });
  });

  describe('order of checks (contract section 2)', () => {
    const noKeyCases: [string, () => InjectOptions][] = [
      [
        'an oversized body',
        () => ({
          method: 'POST',
          url: decisionsUrl(refusedCustomer),
          headers: { 'content-type': 'application/json' },
          payload: paddedBody(good, 64 * KiB),
        }),
      ],
      [
        'a wrong media type',
        () => ({
          method: 'POST',
          url: decisionsUrl(refusedCustomer),
          headers: { 'content-type': 'text/plain' },
          payload: 'hello',
        }),
      ],
      [
        'malformed JSON',
        () => ({
          method: 'POST',
          url: decisionsUrl(refusedCustomer),
          headers: { 'content-type': 'application/json' },
          payload: '{"decision":',
        }),
      ],
      [
        'an invalid body',
        () => ({
          method: 'POST',
          url: decisionsUrl(refusedCustomer),
          headers: { 'content-type': 'application/json' },
          payload: { decision: ['given'] },
        }),
      ],
      [
        'an invalid customer_id',
        () => ({
          method: 'POST',
          url: decisionsUrl('bad%20id'),
          headers: { 'content-type': 'application/json' },
          payload: good,
        }),
      ],
      [
        'an invalid Idempotency-Key',
        () => ({
          method: 'POST',
          url: decisionsUrl(refusedCustomer),
          headers: { 'content-type': 'application/json', 'idempotency-key': '' },
          payload: good,
        }),
      ],
      [
        'an invalid template_code',
        () => ({ method: 'GET', url: '/api/v1/consent-templates/_bad/latest' }),
      ],
      [
        'an unknown template',
        () => ({ method: 'GET', url: '/api/v1/consent-templates/nothing_here/latest' }),
      ],
      ['a wrong method', () => ({ method: 'DELETE', url: decisionsUrl(refusedCustomer) })],
      ['an unknown route', () => ({ method: 'GET', url: '/api/v1/no/such/route' })],
      [
        'a malformed percent-encoding in the path',
        () => ({ method: 'GET', url: '/api/v1/consent-templates/%E0%A4%A/latest' }),
      ],
      [
        'a path parameter over the router limit',
        () => ({
          method: 'GET',
          url: `/api/v1/customers/${'c'.repeat(300)}/consents/templates/${code}/pending`,
        }),
      ],
    ];

    it.each(noKeyCases)('without a key, %s is still 401 1002', async (_label, request) => {
      expectError(await t.app.inject(request()), 401, '1002', 'Unauthorized.');
    });

    it.each(noKeyCases)('with an unknown key, %s is still 401 1002', async (_label, request) => {
      const options = request();
      const response = await t.app.inject({
        ...options,
        headers: {
          ...(options.headers as Record<string, string>),
          'x-system-api-key': 'csk_not_a_real_key_0000000000000000',
        },
      });
      expectError(response, 401, '1002', 'Unauthorized.');
    });

    it('with a key, an oversized body with an invalid customer_id is 413 (size before validation)', async () => {
      expectError(await post(paddedBody(good, 64 * KiB), { customer: 'bad%20id' }), 413, '1006');
    });

    it('with a key, a wrong media type with an invalid customer_id is 415 (media type before validation)', async () => {
      const response = await post('x', {
        customer: 'bad%20id',
        headers: { 'content-type': 'text/plain' },
      });
      expectError(response, 415, '1007');
    });

    it('with a key, a wrong media type with an invalid Idempotency-Key is 415', async () => {
      const response = await post('x', {
        headers: { 'content-type': 'text/plain', 'idempotency-key': '' },
      });
      expectError(response, 415, '1007');
    });

    it('with a key, an invalid body naming an unknown version is 400 (validation before existence)', async () => {
      const response = await post({ consent_version_id: unknownVersionId, decision: 'maybe' });
      expectError(response, 400, '1001');
    });

    it('with a key, an invalid customer_id with an unknown version is 400', async () => {
      const response = await post(
        { consent_version_id: unknownVersionId, decision: 'given' },
        { customer: 'bad%20id' },
      );
      expectError(response, 400, '1001');
    });

    it('with a key, an invalid Idempotency-Key with an unknown version is 400', async () => {
      const response = await post(
        { consent_version_id: unknownVersionId, decision: 'given' },
        { headers: { 'idempotency-key': 'k'.repeat(256) } },
      );
      expectError(response, 400, '1001');
    });

    it('with a key, an invalid customer_id on pending of an unknown template is 400', async () => {
      const response = await t.app.inject({
        method: 'GET',
        url: '/api/v1/customers/bad%20id/consents/templates/nothing_here/pending',
        headers: tenant.headers,
      });
      expectError(response, 400, '1001');
    });

    it('with a key, a well-formed unknown version is 404 1004 Consent version not found.', async () => {
      const response = await post({ consent_version_id: unknownVersionId, decision: 'given' });
      expectError(response, 404, '1004', 'Consent version not found.');
    });

    it('with a key, a withdraw on an unknown version is 404 (existence before rules), not 409', async () => {
      const response = await post({ consent_version_id: unknownVersionId, decision: 'withdraw' });
      expectError(response, 404, '1004', 'Consent version not found.');
    });

    it("with a key, another tenant's version is 404 1004", async () => {
      const given = await post({
        consent_version_id: otherVersion.consent_version_id,
        decision: 'given',
      });
      expectError(given, 404, '1004', 'Consent version not found.');
      const withdraw = await post({
        consent_version_id: otherVersion.consent_version_id,
        decision: 'withdraw',
      });
      expectError(withdraw, 404, '1004', 'Consent version not found.');
    });

    it('with a key, a withdraw with nothing given is 409 1005 Nothing to withdraw.', async () => {
      const response = await post({ ...good, decision: 'withdraw' });
      expectError(response, 409, '1005', 'Nothing to withdraw.');
    });
  });

  describe('path parameters', () => {
    const badTemplateCodes: [string, string][] = [
      ['starting with _', '_abc'],
      ['starting with -', '-abc'],
      ['starting with .', '.abc'],
      ['65 characters long', 'a'.repeat(65)],
      ['200 characters long', 'a'.repeat(200)],
      ['holding an encoded slash', 'a%2Fb'],
      ['holding an encoded backslash', 'a%5Cb'],
      ['holding a space', 'a%20b'],
      ['holding unicode', '%C3%A9t%C3%A9'],
      ['holding raw unicode', 'été'],
      ['holding a NUL', 'a%00b'],
      ['holding a colon', 'a:b'],
      ['holding an @', 'a@b'],
      ['holding a +', 'a+b'],
      ['holding an encoded ?', 'a%3Fb'],
      ['holding an encoded #', 'a%23b'],
      ['holding a quote', "a'b"],
    ];

    it.each(badTemplateCodes)(
      'when template_code is %s, latest answers 400 1001',
      async (_label, templateCode) => {
        const response = await t.app.inject({
          method: 'GET',
          url: `/api/v1/consent-templates/${templateCode}/latest`,
          headers: tenant.headers,
        });
        expectError(response, 400, '1001', 'Invalid request.');
      },
    );

    it.each(badTemplateCodes)(
      'when template_code is %s, pending answers 400 1001',
      async (_label, templateCode) => {
        const response = await t.app.inject({
          method: 'GET',
          url: `/api/v1/customers/someone/consents/templates/${templateCode}/pending`,
          headers: tenant.headers,
        });
        expectError(response, 400, '1001', 'Invalid request.');
      },
    );

    it.each([
      ['64 characters', 'a'.repeat(64)],
      ['one character', 'Z'],
      ['with . _ -', 'A0.b_c-d'],
    ])('when template_code is well-formed (%s) but unknown, answers 404 1004', async (_l, tc) => {
      const latest = await t.app.inject({
        method: 'GET',
        url: `/api/v1/consent-templates/${tc}/latest`,
        headers: tenant.headers,
      });
      expectError(latest, 404, '1004', 'Template not found.');
      const pending = await t.app.inject({
        method: 'GET',
        url: `/api/v1/customers/someone/consents/templates/${tc}/pending`,
        headers: tenant.headers,
      });
      expectError(pending, 404, '1004', 'Template not found.');
    });

    it('when the template has no published version, latest and pending answer 404 1004', async () => {
      const latest = await t.app.inject({
        method: 'GET',
        url: `/api/v1/consent-templates/${draftOnlyCode}/latest`,
        headers: tenant.headers,
      });
      expectError(latest, 404, '1004');
      const pending = await t.app.inject({
        method: 'GET',
        url: `/api/v1/customers/someone/consents/templates/${draftOnlyCode}/pending`,
        headers: tenant.headers,
      });
      expectError(pending, 404, '1004');
    });

    const badCustomerIds: [string, string][] = [
      ['129 characters long', 'c'.repeat(129)],
      ['300 characters long', 'c'.repeat(300)],
      ['holding an encoded slash', 'a%2Fb'],
      ['holding a space', 'a%20b'],
      ['holding unicode', '%C3%A9'],
      ['holding raw unicode', 'jos\u00e9'],
      ['holding an encoded #', 'a%23b'],
      ['holding an encoded ?', 'a%3Fb'],
      ['holding an encoded %', 'a%25b'],
      ['holding a NUL', 'a%00b'],
      ['holding !', 'a!b'],
      ['holding *', 'a*b'],
      ['holding a quote', "a'b"],
      ['holding a comma', 'a,b'],
      ['holding a semicolon', 'a;b'],
      ['holding a tilde', 'a~b'],
      ['holding a bracket', 'a%5Bb%5D'],
    ];

    it.each(badCustomerIds)(
      'when customer_id is %s, pending answers 400 1001',
      async (_label, customerId) => {
        const response = await t.app.inject({
          method: 'GET',
          url: `/api/v1/customers/${customerId}/consents/templates/${code}/pending`,
          headers: tenant.headers,
        });
        expectError(response, 400, '1001', 'Invalid request.');
      },
    );

    it.each(badCustomerIds)(
      'when customer_id is %s, a decision answers 400 1001',
      async (_label, customerId) => {
        expectError(await post(good, { customer: customerId }), 400, '1001', 'Invalid request.');
      },
    );

    it.each([
      ['an e-mail address', 'jane.doe+consent@example.com'],
      ['a URN', 'urn:client:42'],
      ['a phone number', '+33612345678'],
      ['a UUID', '5b1e7c1a-8f0e-4a51-9a8c-0f4f7b2f6b11'],
      ['one character', 'x'],
      ['underscores and dots', 'a_b.c'],
      ['100 characters', 'u'.repeat(100)],
    ])(
      'when customer_id is %s, a decision is 201 and pending sees it',
      async (_label, customerId) => {
        accepted(await post(good, { customer: customerId }));
        const pending = await t.app.inject({
          method: 'GET',
          url: `/api/v1/customers/${customerId}/consents/templates/${code}/pending`,
          headers: tenant.headers,
        });
        expect(pending.statusCode).toBe(200);
        expect(json(pending).data.accepted).toBe(true);
      },
    );

    it('when customer_id is percent-encoded (%40 %2B %3A), it names the same customer as the raw form', async () => {
      const response = await post(good, { customer: 'enc%40x%2By%3Az' });
      accepted(response);
      expect(json(response).data.customer_id).toBe('enc@x+y:z');
      const pending = await t.app.inject({
        method: 'GET',
        url: `/api/v1/customers/enc@x+y:z/consents/templates/${code}/pending`,
        headers: tenant.headers,
      });
      expect(pending.statusCode).toBe(200);
      expect(json(pending).data.accepted).toBe(true);
    });

    it.each([101, 127, 128])(
      'when customer_id is %i characters (the contract allows up to 128), a decision is 201 and pending answers 200',
      async (length) => {
        const customerId = `${length}`.padEnd(length, 'L');
        const response = await post(good, { customer: customerId });
        accepted(response);
        expect(json(response).data.customer_id).toBe(customerId);
        const pending = await t.app.inject({
          method: 'GET',
          url: `/api/v1/customers/${customerId}/consents/templates/${code}/pending`,
          headers: tenant.headers,
        });
        expect(pending.statusCode, pending.body).toBe(200);
        expect(json(pending).data.accepted).toBe(true);
      },
    );

    it('when a 128-character customer_id is sent percent-encoded as encodeURIComponent does (384 characters in the URL), pending answers 200', async () => {
      const customerId = '@:+'.repeat(43).slice(0, 128);
      const encoded = encodeURIComponent(customerId);
      expect(encoded.length).toBe(384);
      const response = await t.app.inject({
        method: 'GET',
        url: `/api/v1/customers/${encoded}/consents/templates/${code}/pending`,
        headers: tenant.headers,
      });
      expect(response.statusCode, response.body).toBe(200);
    });

    it('when a 40-character customer_id is sent percent-encoded (120 characters in the URL), pending answers 200', async () => {
      const response = await t.app.inject({
        method: 'GET',
        url: `/api/v1/customers/${'%40'.repeat(40)}/consents/templates/${code}/pending`,
        headers: tenant.headers,
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(json(response).data.accepted).toBe(false);
    });
  });

  describe('Idempotency-Key header', () => {
    it.each([
      ['empty', ''],
      ['256 characters', 'k'.repeat(256)],
      ['holding a tab', 'a\tb'],
      ['holding non-ASCII', 'cl\u00e9'],
      ['holding DEL', 'a\u007fb'],
    ])('when Idempotency-Key is %s, answers 400 1001 naming the header', async (_label, key) => {
      const body = expectError(
        await post(good, { headers: { 'idempotency-key': key } }),
        400,
        '1001',
      );
      expect((body.details ?? []).some((d) => /idempotency-key/i.test(d.field))).toBe(true);
    });

    it.each([
      ['one character', 'k', 'idem-one'],
      ['255 characters', 'K'.repeat(255), 'idem-255'],
      ['printable punctuation and inner spaces', 'order 42/#!~{}', 'idem-punct'],
    ])(
      'when Idempotency-Key is %s, the decision is recorded 201',
      async (_label, key, customer) => {
        accepted(await post(good, { customer, headers: { 'idempotency-key': key } }));
      },
    );

    it('a key refused with an invalid body is not used up: the same key then records 201', async () => {
      const key = 'first-attempt-was-invalid';
      expectError(
        await post({ ...good, decision: 'nope' }, { headers: { 'idempotency-key': key } }),
        400,
        '1001',
      );
      accepted(
        await post(good, { customer: 'idem-after-400', headers: { 'idempotency-key': key } }),
      );
    });
  });
});
