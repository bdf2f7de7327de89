import type { FastifyRequest } from 'fastify';
import fresh from 'fresh';
import { Type } from 'typebox';
import { HeaderList, type ReadAnswer } from '../platform/read-answer.js';
import { type LatestEntry, type LatestRelease, variantFor } from './catalog.js';
import { requestedLocales } from './locales.js';

/** `?locale=`: which locale's variant to answer (BCP 47); `Accept-Language` when absent. */
export const LocaleQuery = Type.Object({
  locale: Type.Optional(
    Type.String({ description: 'BCP 47 language tag, such as th or en-GB.', examples: ['th'] }),
  ),
});

/** Where an answer's headers go: a Fastify reply, or the headers of an answer sent without it. */
export interface HeaderSink {
  header(name: string, value: string): HeaderSink;
}

/** The locales the request asks for, most wanted first; `400 1001` for a bad `?locale=`. */
export function localesOf(request: FastifyRequest): readonly string[] {
  const query = (request.query ?? {}) as { locale?: string };
  return requestedLocales(query.locale, request.headers['accept-language']);
}

/**
 * The variant's answer in the form the request gets: with `locale` and its headers when the
 * request named a locale, exactly as before locales existed when it did not.
 */
export function answerForm(
  reply: HeaderSink,
  entry: LatestEntry,
  requested: readonly string[],
): { body: string; presentedJson: string; etag: string } {
  if (requested.length === 0) return entry;
  reply.header('content-language', entry.version.locale).header('vary', 'Accept-Language');
  return entry.localized;
}

/**
 * `latest`'s answer, whichever path sends it (the route, or the hot path before Fastify): the
 * variant the request asks for, with its ETag; `304` with no body when `If-None-Match` names
 * it. Only If-None-Match decides: browsers and fetch add `Cache-Control: no-cache` to a
 * conditional request, which is meant for caches, not for us.
 */
export function latestAnswer(
  release: LatestRelease,
  requested: readonly string[],
  ifNoneMatch: string | undefined,
): ReadAnswer {
  const headers = new HeaderList();
  const { body, etag } = answerForm(headers, variantFor(release, requested), requested);
  headers.header('etag', etag).header('cache-control', 'no-cache');
  if (fresh({ 'if-none-match': ifNoneMatch }, { etag })) {
    return { status: 304, headers: headers.entries, body: undefined };
  }
  // Serialized once per version, with its ETag: sent as it is.
  return { status: 200, headers: headers.entries, body };
}
