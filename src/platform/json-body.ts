import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from './errors.js';

type CallbackParser = (
  request: FastifyRequest,
  body: string,
  done: (error: Error | null, value?: unknown) => void,
) => void;

/**
 * Replaces the `application/json` parser with Fastify's own (secure-json-parse, refusing
 * `__proto__` and `constructor.prototype`) followed by a refusal, `400 1001`, of any object at
 * any depth that names a key twice. `JSON.parse` keeps the last of two values, other parsers the
 * first; a consent record must not depend on which. No maintained parser on npm reports repeated
 * keys (secure-json-parse does not), so `repeatsAKey` does, on the text already found valid.
 */
export function installJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, jsonBodyParser(app));
}

/**
 * The JSON parser of `installJsonBodyParser`, for a plugin that reads JSON under another media
 * type too (the cookie banner's choice, sent as `text/plain` so that no preflight is needed).
 */
export function jsonBodyParser(app: FastifyInstance): CallbackParser {
  // Fastify's default JSON parser is the callback form of FastifyBodyParser.
  const parse = app.getDefaultJsonParser('error', 'error') as CallbackParser;
  return (request, body, done) => {
    parse(request, body, (error, value) => {
      if (error) return done(error);
      if (repeatsAKey(body, value)) {
        return done(
          new AppError('invalidRequest', {
            details: [{ field: 'body', issue: 'names a key more than once' }],
          }),
        );
      }
      done(null, value);
    });
  };
}

const quote = 0x22;
const backslash = 0x5c;
const colon = 0x3a;

/**
 * Whether an object in `text`, a valid JSON text, names a key twice; `value` is what it parsed
 * to. Each member of an object has exactly one colon outside strings, and parsing keeps one
 * property per distinct name (escapes resolved), so the text repeats a key exactly when it has
 * more such colons than the value has properties. One pass over the text, no allocation per key.
 */
export function repeatsAKey(text: string, value: unknown): boolean {
  const members = countMembers(text);
  return members > 0 && members !== countProperties(value);
}

function countMembers(text: string): number {
  let members = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === quote) {
      i = closingQuote(text, i) + 1;
    } else {
      if (c === colon) members += 1;
      i += 1;
    }
  }
  return members;
}

/** The index of the quote closing the string opened at `open` (the text is valid JSON). */
function closingQuote(text: string, open: number): number {
  let end = text.indexOf('"', open + 1);
  while (end > 0 && text.charCodeAt(end - 1) === backslash) {
    // Escaped only after an odd run of backslashes: `"\\"` ends at its second quote.
    let run = 1;
    while (text.charCodeAt(end - 1 - run) === backslash) run += 1;
    if (run % 2 === 0) break;
    end = text.indexOf('"', end + 1);
  }
  return end < 0 ? text.length : end;
}

/** Properties of every object in a parsed value, walked without recursion (arrays may nest deep). */
function countProperties(value: unknown): number {
  let properties = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item !== 'object' || item === null) continue;
    if (Array.isArray(item)) {
      for (const element of item) if (typeof element === 'object') pending.push(element);
    } else {
      const children = Object.values(item);
      properties += children.length;
      for (const child of children) if (typeof child === 'object') pending.push(child);
    }
  }
  return properties;
}

const jsonMediaType = /^application\/json\s*(;|$)/i;

/**
 * The `preValidation` hook of a route whose JSON body is optional (every field has a default):
 * a body of another media type is `415 1007` before validation, and no body at all is `{}`.
 */
export async function optionalJsonBody(request: FastifyRequest): Promise<void> {
  const type = request.headers['content-type'];
  if (type !== undefined && !jsonMediaType.test(type)) throw new AppError('unsupportedMediaType');
  request.body ??= {};
}
