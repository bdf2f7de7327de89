import { AppError } from '../platform/errors.js';

/** A JSON object as a SCIM message carries it. */
export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The member of `object` named `name` in any case: SCIM's attribute names are case-insensitive
 * (RFC 7643 section 2.1), and providers do not all write them alike (`Operations`, `operations`).
 */
export function memberOf(object: JsonObject, name: string): unknown {
  if (name in object) return object[name];
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(object)) {
    if (key.toLowerCase() === lower) return value;
  }
  return undefined;
}

/** The core schemas' URN prefix, which a path or a key may carry (`urn:…:core:2.0:User:userName`). */
const coreUrn = /^urn:ietf:params:scim:schemas:core:2\.0:(User|Group):/i;

/**
 * An attribute's name without its core schema's URN; undefined for an attribute of another
 * schema (an extension such as Entra's enterprise user), which this service does not keep.
 */
export function withoutCoreUrn(name: string): string | undefined {
  const bare = name.replace(coreUrn, '');
  return bare.toLowerCase().startsWith('urn:') ? undefined : bare;
}

/**
 * A boolean as providers send one: JSON `true`/`false`, or the strings `"True"`/`"False"` in any
 * case, which Entra ID sends for `active` in a PATCH.
 */
export function booleanOf(value: unknown, field: string): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) {
    return value.toLowerCase() === 'true';
  }
  throw new AppError('invalidValue', { message: `${field} is true or false.` });
}

/** A string of at most `max` characters, trimmed; null for none (absent, null or empty). */
export function textOf(value: unknown, field: string, max: number): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') {
    throw new AppError('invalidValue', { message: `${field} is a string.` });
  }
  const text = value.trim();
  if (text.length > max) {
    throw new AppError('invalidValue', { message: `${field} is at most ${max} characters.` });
  }
  return text === '' ? null : text;
}
