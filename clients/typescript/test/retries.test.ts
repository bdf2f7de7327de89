import { ConsentApiError, createConsentClient } from '@consent-service/client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { collectingGarbage } from '../../../test/helpers/gc.js';
import { unique } from '../../../test/helpers/seed.js';
import { storeAgnostic } from '../../../test/helpers/stores.js';
import { budget } from '../../../test/helpers/time.js';
import { startProxy, type TestProxy } from './helpers/proxy.js';
import { decisionIds, type ServedTenant, serveTenant } from './helpers/server.js';

/** The service's answer while its store is out (contract section 3), as a proxy makes it up. */
const unavailable = {
  status: 503,
  headers: { 'content-type': 'application/json; charset=utf-8', 'retry-after': '0' },
  body: '{"code":"1009","message":"Service unavailable."}',
};

describe.each(storeAgnostic)('the client trying again, through a proxy, on $name', (store) => {
  let served: ServedTenant;
  let proxy: TestProxy;

  beforeAll(async () => {
    served = await serveTenant(store);
    proxy = await startProxy(served.baseUrl);
  });
  afterAll(async () => {
    await proxy?.close();
    await served?.close();
  });
  beforeEach(() => {
    proxy.seen.length = 0;
    proxy.plan();
  });

  function client(fields: { attempts?: number; timeoutMs?: number } = {}) {
    return createConsentClient({
      baseUrl: proxy.url,
      apiKey: served.apiKey,
      retries: { attempts: fields.attempts ?? 3, baseDelayMs: 10 },
      ...(fields.timeoutMs === undefined ? {} : { timeoutMs: fields.timeoutMs }),
    });
  }

  function given() {
    return { consent_version_id: served.version.consent_version_id, decision: 'given' as const };
  }

  it('a decision whose 201 was lost behind a 503 is tried again with its key and stored once', async () => {
    const customer = unique('c');
    proxy.plan({ kind: 'forward-then-answer', answer: unavailable });
    const decision = await client().decide(customer, given());
    expect(await decisionIds(served, customer)).toEqual([decision.decision_id]);
    expect(proxy.seen).toHaveLength(2);
    const [first, second] = proxy.seen;
    expect(first!.upstream?.status).toBe(201);
    expect(second!.headers['idempotency-key']).toBe(first!.headers['idempotency-key']);
    expect(second!.upstream?.headers['idempotent-replayed']).toBe('true');
    expect(decision).toEqual(JSON.parse(first!.upstream!.body).data);
  });

  it('a decision whose connection dropped after the server stored it is stored once', async () => {
    const customer = unique('c');
    proxy.plan({ kind: 'forward-then-drop' });
    const decision = await client().decide(customer, given());
    expect(await decisionIds(served, customer)).toEqual([decision.decision_id]);
    expect(proxy.seen).toHaveLength(2);
    const [first, second] = proxy.seen;
    expect(first!.upstream?.status).toBe(201);
    expect(second!.headers['idempotency-key']).toBe(first!.headers['idempotency-key']);
    expect(decision).toEqual(JSON.parse(first!.upstream!.body).data);
  });

  it('a decision whose try ran out of time is tried again with its key and stored once', async () => {
    const customer = unique('c');
    proxy.plan({ kind: 'forward-then-hang' });
    const decision = await client({ timeoutMs: budget(1_000) }).decide(customer, given());
    expect(await decisionIds(served, customer)).toEqual([decision.decision_id]);
    expect(proxy.seen).toHaveLength(2);
    expect(proxy.seen[1]!.headers['idempotency-key']).toBe(
      proxy.seen[0]!.headers['idempotency-key'],
    );
  });

  it('a try never answered runs out of time, though garbage is collected while it waits', async () => {
    proxy.plan({ kind: 'forward-then-hang' });
    const reading = client({ attempts: 1, timeoutMs: budget(300) }).latest(served.code);
    await expect(collectingGarbage(reading)).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(proxy.seen).toHaveLength(1);
  });

  it('a try whose answer has been read lets go of its request before its time limit ends', async () => {
    let tried: WeakRef<Request> | undefined;
    const reader = createConsentClient({
      baseUrl: proxy.url,
      apiKey: served.apiKey,
      timeoutMs: budget(60_000),
      fetch: (request) => {
        tried = new WeakRef(request);
        return fetch(request);
      },
    });
    expect(await reader.latest(served.code)).toEqual(served.version);
    expect(tried).toBeDefined();
    await expect
      .poll(async () => {
        await collectingGarbage(new Promise((resolve) => setTimeout(resolve, 20)));
        return tried?.deref();
      })
      .toBeUndefined();
  });

  it('each decision has a key of its own', async () => {
    const customer = unique('c');
    await client().decide(customer, given());
    await client().decide(customer, given());
    const keys = proxy.seen.map((seen) => seen.headers['idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^[\x21-\x7e]{1,255}$/);
    expect(keys[1]).not.toBe(keys[0]);
  });

  it('a read answered 503 is tried again', async () => {
    proxy.plan({ kind: 'answer', answer: unavailable });
    expect(await client().latest(served.code)).toEqual(served.version);
    expect(proxy.seen).toHaveLength(2);
  });

  it('429 with Retry-After in seconds: the next try waits at least that long', async () => {
    proxy.plan({
      kind: 'answer',
      answer: {
        status: 429,
        headers: { 'content-type': 'application/json; charset=utf-8', 'retry-after': '1' },
        body: '{"code":"1008","message":"Too many requests."}',
      },
    });
    expect(await client().latest(served.code)).toEqual(served.version);
    const [first, second] = proxy.seen;
    // Timers may fire a millisecond before performance.now() says.
    expect(second!.arrivedAt - first!.answeredAt!).toBeGreaterThanOrEqual(1000 - 5);
  });

  it('429 with Retry-After as an HTTP date: the next try waits until then', async () => {
    // An HTTP date counts whole seconds: a whole second at least one second ahead.
    const until = new Date(Math.ceil(Date.now() / 1000) * 1000 + 1000);
    proxy.plan({
      kind: 'answer',
      answer: { status: 429, headers: { 'retry-after': until.toUTCString() } },
    });
    expect(await client().latest(served.code)).toEqual(served.version);
    expect(proxy.seen).toHaveLength(2);
    // Timers may fire a millisecond before the wall clock says.
    expect(proxy.seen[1]!.arrivedAtDate).toBeGreaterThanOrEqual(until.getTime() - 5);
  });

  it('a Retry-After longer than the longest wait is not waited for: thrown with retryAfterMs', async () => {
    proxy.plan({
      kind: 'answer',
      answer: {
        status: 429,
        headers: { 'content-type': 'application/json; charset=utf-8', 'retry-after': '3600' },
        body: '{"code":"1008","message":"Too many requests."}',
      },
    });
    const error = await client()
      .latest(served.code)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConsentApiError);
    expect(error).toMatchObject({ status: 429, code: '1008', retryAfterMs: 3_600_000 });
    expect(proxy.seen).toHaveLength(1);
  });

  it('tries at most `attempts` times, then throws the last answer', async () => {
    proxy.plan(
      ...Array.from({ length: 5 }, () => ({ kind: 'answer' as const, answer: unavailable })),
    );
    const error = await client({ attempts: 4 })
      .decide(unique('c'), given())
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConsentApiError);
    expect(error).toMatchObject({ status: 503, code: '1009', message: 'Service unavailable.' });
    expect(proxy.seen).toHaveLength(4);
  });

  it("an answer that is not the service's (an HTML 502) throws its status, with no code", async () => {
    proxy.plan({
      kind: 'answer',
      answer: {
        status: 502,
        headers: { 'content-type': 'text/html' },
        body: '<html><body>Bad gateway</body></html>',
      },
    });
    const error = await client()
      .latest(served.code)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConsentApiError);
    expect(error).toMatchObject({
      status: 502,
      code: undefined,
      message: 'The service answered HTTP 502.',
    });
    expect(proxy.seen).toHaveLength(1);
  });

  it('latest() and pending() ask for the locale given, as ?locale=', async () => {
    await client().latest(served.code, { locale: 'th' });
    const customer = unique('c');
    await client().pending(customer, served.code, { locale: 'th-TH' });
    const urls = proxy.seen.map((seen) => new URL(seen.url, 'http://proxy'));
    expect(urls.map((url) => url.searchParams.get('locale'))).toEqual(['th', 'th-TH']);
    expect(urls.map((url) => url.pathname)).toEqual([
      `/api/v1/consent-templates/${served.code}/latest`,
      `/api/v1/customers/${customer}/consents/templates/${served.code}/pending`,
    ]);
  });

  it('an error the rules answered (409) is not tried again', async () => {
    const error = await client()
      .decide(unique('c'), { ...given(), decision: 'withdraw' })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ status: 409, code: '1005' });
    expect(proxy.seen).toHaveLength(1);
  });

  it('the health check is asked once, its 503 answered as its body, without the key', async () => {
    proxy.plan({
      kind: 'answer',
      answer: {
        status: 503,
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body: '{"status":"unavailable","success":false}',
      },
    });
    expect(await client().health()).toEqual({ status: 'unavailable', success: false });
    expect(proxy.seen).toHaveLength(1);
    expect(proxy.seen[0]!.headers['x-system-api-key']).toBeUndefined();
  });

  it('the caller aborting ends the waits at once', async () => {
    proxy.plan({ kind: 'answer', answer: { ...unavailable, headers: { 'retry-after': '5' } } });
    const controller = new AbortController();
    const call = client().latest(served.code, { signal: controller.signal });
    await expect.poll(() => proxy.seen.length).toBe(1);
    await expect.poll(() => proxy.seen[0]?.answeredAt).toBeDefined();
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    expect(proxy.seen).toHaveLength(1);
  });
});

describe.each(storeAgnostic)("the service's own rate limit, on $name", (store) => {
  let served: ServedTenant;

  beforeAll(async () => {
    served = await serveTenant(store, { RATE_LIMIT_PER_MINUTE: '1' });
  });
  afterAll(async () => {
    await served?.close();
  });

  it('past the limit, throws 429 1008 with the Retry-After the service sent', async () => {
    const client = createConsentClient({
      baseUrl: served.baseUrl,
      apiKey: served.apiKey,
      retries: { attempts: 1 },
    });
    await client.latest(served.code);
    const error = await client.latest(served.code).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConsentApiError);
    expect(error).toMatchObject({ status: 429, code: '1008', message: 'Too many requests.' });
    const { retryAfterMs } = error as ConsentApiError;
    // The service counts a minute from a key's first request, and asks for one second at least.
    expect(retryAfterMs).toBeGreaterThanOrEqual(1000);
    expect(retryAfterMs).toBeLessThanOrEqual(60_000);
  });
});
