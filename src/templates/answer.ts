import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { LatestEntry } from './catalog.js';
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
