import type { FastifyRequest } from 'fastify';
import { type PageLocale, pageLocales, type SessionClaims } from '../preference-centre/index.js';
import { chooseLocale, requestedLocales } from '../templates/index.js';

/**
 * The locales a request asks for (the link's `locale` for a session that has one, else
 * `Accept-Language`), and the page's own among them: English unless Thai is asked first. Every
 * page and error page of the preference centre reads it here.
 */
export function localeOf(
  request: FastifyRequest,
  session?: SessionClaims,
): { requested: readonly string[]; locale: PageLocale } {
  const requested = session?.locale
    ? [session.locale]
    : requestedLocales(undefined, request.headers['accept-language']);
  return { requested, locale: chooseLocale(requested, pageLocales, 'en') as PageLocale };
}
