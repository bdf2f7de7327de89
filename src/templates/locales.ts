import { match } from '@formatjs/intl-localematcher';
import { LRUCache } from 'lru-cache';
import Negotiator from 'negotiator';
import { AppError } from '../platform/errors.js';

/**
 * Locales are BCP 47 language tags, kept in their canonical form (`en-GB`, `th`, `zh-Hant-TW`),
 * which `Intl.getCanonicalLocales` both checks and writes.
 */

/**
 * The tag in canonical form; undefined when it is not a well-formed language tag. `_` is read
 * as `-`: Android and Java write a locale `th_TH`, and a client passes on what its platform
 * gives it. The one reading of a tag, wherever it comes from (`?locale=`, `Accept-Language`, a
 * form or the command line).
 */
export function canonicalLocale(tag: string): string | undefined {
  if (tag.length === 0 || tag.length > 35 || !/^[A-Za-z0-9_-]+$/.test(tag)) return undefined;
  try {
    return Intl.getCanonicalLocales(tag.replaceAll('_', '-'))[0];
  } catch {
    return undefined;
  }
}

/** The tag in canonical form; `400 1001` naming `field` when it is none. */
export function localeOf(tag: string, field: string): string {
  const locale = canonicalLocale(tag);
  if (locale === undefined) {
    throw new AppError('invalidRequest', {
      details: [{ field, issue: 'must be a BCP 47 language tag, such as th or en-GB' }],
    });
  }
  return locale;
}

/**
 * The locales a request asks for, most wanted first: its `?locale=` alone when it has one,
 * otherwise its `Accept-Language` by quality (`negotiator`, which drops `q=0`). Empty: it names
 * none. Both are read by `canonicalLocale`, and one rule (docs/api-behaviour.md) says what a
 * value that is still no tag does: `?locale=` is one value the caller chose, refused with
 * `400 1001` as any bad parameter is; `Accept-Language` is a list of preferences, often written
 * by a browser or a proxy, and an entry that is no tag is skipped, as `*` is.
 */
export function requestedLocales(
  query: string | undefined,
  acceptLanguage: string | undefined,
): readonly string[] {
  if (query !== undefined) return [localeOf(query, 'querystring.locale')];
  if (acceptLanguage === undefined || acceptLanguage.trim() === '') return [];
  let parsed = parsedHeaders.get(acceptLanguage);
  if (parsed === undefined) {
    const languages = new Negotiator({
      headers: { 'accept-language': acceptLanguage },
    }).languages();
    parsed = languages.flatMap((tag) => (tag === '*' ? [] : (canonicalLocale(tag) ?? [])));
    parsedHeaders.set(acceptLanguage, parsed);
  }
  return parsed;
}

/**
 * `Accept-Language` values read before: a browser sends the same one on every request, and
 * reading it costs several microseconds, a sixth of a whole `latest`. Few values are in use.
 */
const parsedHeaders = new LRUCache<string, readonly string[]>({ max: 1000 });

/**
 * The locale answered for the requested ones: for each, most wanted first, the exact tag, then
 * ever shorter prefixes of it (`th-TH` -> `th`), as RFC 4647's lookup does; the fallback when
 * none is available.
 */
export function chooseLocale(
  requested: readonly string[],
  available: readonly string[],
  fallback: string,
): string {
  if (requested.length === 0) return fallback;
  return match(requested, available, fallback, { algorithm: 'lookup' });
}

/**
 * The texts a filter by locale finds (the back-office's Decisions list), by the API's own rule:
 * `anyOf`, the texts the API would answer a request for the tag with (the tag, then ever
 * shorter prefixes, as `chooseLocale`'s RFC 4647 lookup takes them, a lone singleton such as
 * `-x` dropped with the subtag after it), and the tags `under` it taken as a language range (RFC
 * 4647 basic filtering: `th` takes in `th-TH`). So `th` finds `th` and `th-TH`, and `th-TH` finds
 * `th-TH` and `th`, as a customer asking for `th-TH` is shown `th`. The tag is canonical.
 */
export function localeRange(tag: string): { anyOf: string[]; under: string } {
  const anyOf = [tag];
  const subtags = tag.split('-');
  while (subtags.length > 1) {
    subtags.pop();
    if (subtags.at(-1)?.length === 1) subtags.pop();
    if (subtags.length > 0) anyOf.push(subtags.join('-'));
  }
  return { anyOf, under: tag };
}
