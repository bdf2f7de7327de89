/**
 * Data-subject requests from the preference centre, on both stores (docs/requests.md): the
 * customer sends one from their own page, which then lists it with its due date; it is recorded
 * as theirs, `via: preference-centre`, with a receipt that verifies and an audit entry under
 * their session; a form without the session's token records nothing.
 */
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../src/app/kinds.js';
import { parseVerifierKey, verifyReceipt } from '../../src/proof/index.js';
import { json, startTestApp, type TestApp, testLogKeys } from '../helpers/app.js';
import { pollUntil } from '../helpers/process.js';
import { type SeededTenant, seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';
import { budget } from '../helpers/time.js';

describe.each(stores)('requests from the preference centre on $name', (store) => {
  let t: TestApp;
  let a: SeededTenant;

  beforeAll(async () => {
    t = await startTestApp(store, { LOG_INTEGRATE_INTERVAL_MS: '60000' });
    a = await seedTenant(t.db);
  });
  afterAll(() => t?.close());

  const page = () => `/preferences/${a.tenant.alias}`;
  const open = async (customer: string) => {
    const link = await t.app.inject({
      method: 'POST',
      url: `/api/v1/customers/${customer}/preference-links`,
      headers: a.headers,
    });
    expect(link.statusCode, link.body).toBe(201);
    const url = new URL(json(link).data.url);
    const opened = await t.app.inject({ method: 'GET', url: `${url.pathname}${url.search}` });
    expect(opened.statusCode).toBe(303);
    const set = opened.headers['set-cookie'];
    return String(Array.isArray(set) ? set[0] : set).split(';')[0] as string;
  };
  const get = (cookie: string) => t.app.inject({ method: 'GET', url: page(), headers: { cookie } });
  const post = (cookie: string, fields: Record<string, string>) =>
    t.app.inject({
      method: 'POST',
      url: `${page()}/requests`,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(fields).toString(),
    });
  const tokenOf = (response: LightMyRequestResponse) =>
    /name="_csrf" value="([^"]+)"/.exec(response.body)?.[1] ?? '';

  it('the customer sends an access request from their page, which lists it with when it is due', async () => {
    const cookie = await open('maya');
    const before = await get(cookie);
    expect(before.body).toContain('You have not made a request.');
    const sent = await post(cookie, {
      _csrf: tokenOf(before),
      kind: 'access',
      details: 'Everything you hold on me.',
    });
    expect(sent.statusCode).toBe(303);
    expect(sent.headers.location).toBe(`${page()}?done=requestOpened#requests-title`);
    const after = await t.app.inject({
      method: 'GET',
      url: `${page()}?done=requestOpened`,
      headers: { cookie },
    });
    expect(after.body).toContain('Your request was received.');
    expect(after.body).toContain('<td>A copy of my data</td>');
    expect(after.body).toContain('<td>Received</td>');

    const listed = json(
      await t.app.inject({
        method: 'GET',
        url: '/api/v1/customers/maya/requests',
        headers: a.headers,
      }),
    ).data;
    expect(listed).toEqual([
      expect.objectContaining({ customer_id: 'maya', kind: 'access', via: 'preference-centre' }),
    ]);
    const detail = json(
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/requests/${listed[0].request_id}`,
        headers: a.headers,
      }),
    ).data;
    expect(detail.details).toBe('Everything you hold on me.');
    // Asked again while the step's leaf waits for the log (a busy machine's pass).
    const answered = await pollUntil(
      async () => {
        const r = await t.app.inject({
          method: 'GET',
          url: `/api/v1/request-steps/${detail.steps[0].step_id}/receipt?wait=true`,
          headers: a.headers,
        });
        return r.statusCode === 202 ? undefined : r;
      },
      { timeoutMs: budget(30_000) },
    );
    expect(answered?.statusCode).toBe(200);
    const receipt = json(answered as NonNullable<typeof answered>);
    expect(receipt.data.opening).toMatchObject({ customer_id: 'maya', via: 'preference-centre' });
    const key = parseVerifierKey(testLogKeys.verifierKey);
    if (!key.ok) throw new Error(key.reason);
    expect(verifyReceipt(receipt, [key.value], registry.formats)).toMatchObject({
      ok: true,
      value: { opened: true },
    });
    const audited = await t.db
      .selectFrom('audit_log')
      .select(['action', 'actor_kind', 'target'])
      .where('tenant_id', '=', a.tenant.id)
      .where('action', '=', 'request.received')
      .execute();
    expect(audited).toEqual([
      { action: 'request.received', actor_kind: 'customer', target: listed[0].request_id },
    ]);
  });

  it('a form without the session’s token, or of an unknown kind, records nothing', async () => {
    const cookie = await open('noor');
    const page = await get(cookie);
    expect((await post(cookie, { _csrf: 'forged', kind: 'access' })).statusCode).toBe(403);
    expect((await post(cookie, { _csrf: tokenOf(page), kind: 'deletion' })).statusCode).toBe(400);
    const listed = json(
      await t.app.inject({
        method: 'GET',
        url: '/api/v1/customers/noor/requests',
        headers: a.headers,
      }),
    ).data;
    expect(listed).toEqual([]);
  });
});
