/**
 * The public cookie endpoints' service (src/cookies/public.ts) as the contract states it: the
 * banner script answered as UTF-8 JavaScript whose length is its bytes', with its ETag and
 * caching, the Thai texts intact; and a visitor's choice checked by the service itself, whoever
 * calls it, before anything reaches the writer.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customerTokenKey } from '../../src/cookies/customer-tokens.js';
import { cookiePublic, recordChoice } from '../../src/cookies/public.js';
import type { CookieChoiceJob, CookieChoiceWriter } from '../../src/cookies/writes.js';
import { AppError } from '../../src/platform/errors.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { type PublishedSystem, seedPublishedSystem } from '../helpers/cookies.js';
import { seedTenant } from '../helpers/seed.js';
import { stores } from '../helpers/stores.js';

const origin = 'https://www.bank.example';
/** The Thai title a new configuration starts with (docs/cookies.md: English and Thai texts). */
const thaiTitle = 'เราใช้คุกกี้';

describe.each(stores)('the banner script on $name', (store) => {
  let t: TestApp;
  let site: PublishedSystem;

  beforeAll(async () => {
    t = await startTestApp(store);
    site = await seedPublishedSystem(t.db, (await seedTenant(t.db)).tenant.id);
  });
  afterAll(async () => t.close());

  const get = (headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: `/cookies/v1/${site.scope}/banner.js`, headers });

  it('answers UTF-8 JavaScript, its Content-Length its bytes, the Thai texts intact', async () => {
    const response = await get();
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(response.headers['cache-control']).toBe(
      'public, max-age=240, stale-while-revalidate=60',
    );
    expect(response.headers['content-length']).toBe(String(response.rawPayload.length));
    const text = new TextDecoder('utf-8', { fatal: true }).decode(response.rawPayload);
    expect(text).toContain(thaiTitle);
    expect(text).toContain(site.scope);
    expect(text).not.toContain('__CONSENTRIX_CONFIG__');
  });

  it('answers the same bytes again, and 304 to its ETag', async () => {
    const first = await get();
    const again = await get();
    expect(again.rawPayload.equals(first.rawPayload)).toBe(true);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const cached = await get({ 'if-none-match': etag });
    expect(cached.statusCode).toBe(304);
    expect(cached.headers.etag).toBe(etag);
  });
});

describe.each(stores)('a choice checked by the service on $name', (store) => {
  let t: TestApp;
  let site: PublishedSystem;
  /** What reached the writer: nothing, for a body the service refuses. */
  const written: CookieChoiceJob[] = [];
  const writer: CookieChoiceWriter = {
    async write(job) {
      written.push(job);
      return {
        kind: 'recorded',
        decision: { id: randomUUID(), decided_at: '2026-11-27T00:00:00.000Z' },
      };
    },
  };

  beforeAll(async () => {
    t = await startTestApp(store);
    site = await seedPublishedSystem(t.db, (await seedTenant(t.db)).tenant.id);
  });
  afterAll(async () => t.close());

  const choice = (overrides: Record<string, unknown> = {}) => ({
    event_id: randomUUID(),
    visitor_id: randomUUID(),
    configuration_id: site.configurationId,
    configuration_version: site.version,
    method: 'reject-all',
    categories: {
      necessary: true,
      analytics: false,
      marketing: false,
      functional: false,
      personalization: false,
    },
    locale: 'th',
    ...overrides,
  });

  const record = (body: unknown) =>
    recordChoice(
      cookiePublic(t.db),
      t.db,
      writer,
      t.vault,
      {
        scope: site.scope,
        origin,
        body,
        ip: '203.0.113.77',
        userAgent: null,
        region: null,
      },
      customerTokenKey(t.vault.dataKey),
    );

  /** The refusal an act ends with, as its code and the fields it names. */
  async function refusal(act: Promise<unknown>) {
    try {
      await act;
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return { code: error.code, fields: error.details?.map((d) => d.field) ?? [] };
    }
    throw new Error('the choice was not refused');
  }

  it('records a good body, given as an object or as its JSON text', async () => {
    written.length = 0;
    const body = choice();
    expect((await record(body)).status).toBe(201);
    expect((await record(JSON.stringify(choice()))).status).toBe(201);
    expect(written.map((job) => job.eventId)[0]).toBe(body.event_id);
    expect(written).toHaveLength(2);
  });

  it('refuses a malformed field, naming it, with nothing given to the writer: 400 1001', async () => {
    written.length = 0;
    expect(await refusal(record(choice({ event_id: 'not-a-uuid' })))).toEqual({
      code: '1001',
      fields: ['event_id'],
    });
    expect(await refusal(record(choice({ configuration_version: 0 })))).toEqual({
      code: '1001',
      fields: ['configuration_version'],
    });
    expect(await refusal(record(choice({ method: 'all' })))).toMatchObject({ code: '1001' });
    expect(written).toHaveLength(0);
  });
});
