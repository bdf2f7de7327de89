/**
 * The public cookie endpoints as the bench loads them: a site's pages fetching the banner
 * script, and visitors' choices posted as `sendBeacon` posts them, each a new visitor and a new
 * event, from the system's own origin.
 */
import { randomUUID } from 'node:crypto';
import { loadConfig as loadServiceConfig } from '../src/platform/config.js';
import { createDb } from '../src/platform/db.js';
import type { CookieFixture } from './dataset.js';

export function bannerPath(c: CookieFixture): string {
  return `/cookies/v1/${c.scope}/banner.js`;
}

export function choicesPath(c: CookieFixture): string {
  return `/cookies/v1/${c.scope}/decisions`;
}

/**
 * What the banner posts, as `text/plain` (a CORS simple request, no preflight). Each `{uuid}` is
 * replaced by a fresh random UUID per request (bench/wrk.lua, bench/load.mjs), so that every
 * request is a new visitor's first choice, recorded with `201`, never a retry's `200`.
 */
export function choiceRequest(c: CookieFixture): {
  headers: Record<string, string>;
  body: string;
} {
  return {
    headers: { origin: c.origin, 'content-type': 'text/plain;charset=UTF-8' },
    body: JSON.stringify({
      event_id: '{uuid}',
      visitor_id: '{uuid}',
      configuration_id: c.configurationId,
      configuration_version: c.configurationVersion,
      method: 'custom',
      categories: {
        necessary: true,
        analytics: true,
        marketing: false,
        functional: true,
        personalization: false,
      },
      locale: 'en',
    }),
  };
}

/** One choice before the load: it must be recorded (`201`), or the load would measure refusals. */
export async function checkChoiceRecorded(url: string, c: CookieFixture): Promise<void> {
  const { headers, body } = choiceRequest(c);
  const response = await fetch(`${url}${choicesPath(c)}`, {
    method: 'POST',
    headers,
    body: body.replaceAll('{uuid}', () => randomUUID()),
  });
  if (response.status !== 201) {
    throw new Error(`a cookie choice answered ${response.status}: ${await response.text()}`);
  }
}

/** How many choices the store holds: read before and after a run, to count what it recorded. */
export async function storedChoices(databaseUrl: string): Promise<number> {
  const db = createDb(loadServiceConfig({ DATABASE_URL: databaseUrl, DATABASE_POOL_SIZE: '1' }));
  try {
    const { n } = await db
      .selectFrom('cookie_decisions')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(n);
  } finally {
    await db.destroy();
  }
}
