/**
 * SCIM filters (RFC 7644 section 3.4.2.2), read and matched against resources as they are
 * answered: `eq`, `ne`, `co`, `sw`, `ew` and `pr`, joined by `and`, `or`, `not` and brackets,
 * and value filters on multi-valued attributes (`emails[type eq "work"]`, `members[value eq
 * "…"]`, `emails[type eq "work"].value eq "…"`, as Entra ID writes one). Attribute names and
 * operators are read in any case; a string matches in any case unless its attribute is
 * case-exact (`id`, `externalId`). The ordering operators (`gt`, `ge`, `lt`, `le`) are refused.
 */
import { AppError } from '../platform/errors.js';
import { isObject, type JsonObject, memberOf, withoutCoreUrn } from './values.js';

type Comparison = 'eq' | 'ne' | 'co' | 'sw' | 'ew' | 'pr';

/** An attribute, and one of its sub-attributes; lower case. */
export interface AttributePath {
  attr: string;
  sub?: string;
}

export type Filter =
  | { op: 'and' | 'or'; left: Filter; right: Filter }
  | { op: 'not'; filter: Filter }
  /** Some value of a multi-valued attribute matches the inner filter (on its sub-attributes). */
  | { op: 'has'; attr: string; filter: Filter }
  | { op: Comparison; path: AttributePath; value?: unknown };

/** A word (an attribute, an operator, a literal), a quoted string's value, or a bracket. */
interface Token {
  kind: 'word' | 'string' | '(' | ')' | '[' | ']';
  text: string;
}

const refuse = (detail: string) =>
  new AppError('invalidFilter', { message: `The filter is not one this service reads: ${detail}` });

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text.charAt(i);
    if (/\s/.test(c)) {
      i += 1;
    } else if (c === '(' || c === ')' || c === '[' || c === ']') {
      tokens.push({ kind: c, text: c });
      i += 1;
    } else if (c === '"') {
      let end = i + 1;
      while (end < text.length && text.charAt(end) !== '"')
        end += text.charAt(end) === '\\' ? 2 : 1;
      if (end >= text.length) throw refuse('a string is not closed.');
      try {
        tokens.push({ kind: 'string', text: JSON.parse(text.slice(i, end + 1)) as string });
      } catch {
        throw refuse('a string is not valid JSON.');
      }
      i = end + 1;
    } else {
      const word = /^[^\s()[\]"]+/.exec(text.slice(i))?.[0] ?? c;
      tokens.push({ kind: 'word', text: word });
      i += word.length;
    }
  }
  return tokens;
}

/** Reads a filter; `400 invalidFilter` naming what is wrong with it. */
export function parseFilter(text: string): Filter {
  const tokens = tokenize(text);
  let at = 0;
  const peekWord = () => (tokens[at]?.kind === 'word' ? tokens[at]?.text : undefined);
  const expect = (kind: Token['kind']) => {
    if (tokens[at]?.kind !== kind) throw refuse(`"${kind}" expected.`);
    at += 1;
  };
  const keyword = (word: string) => {
    if (peekWord()?.toLowerCase() !== word) return false;
    at += 1;
    return true;
  };

  function expression(): Filter {
    let left = conjunction();
    while (keyword('or')) left = { op: 'or', left, right: conjunction() };
    return left;
  }
  function conjunction(): Filter {
    let left = unary();
    while (keyword('and')) left = { op: 'and', left, right: unary() };
    return left;
  }
  function unary(): Filter {
    if (keyword('not')) {
      expect('(');
      const filter = expression();
      expect(')');
      return { op: 'not', filter };
    }
    if (tokens[at]?.kind === '(') {
      at += 1;
      const filter = expression();
      expect(')');
      return filter;
    }
    return attributeExpression();
  }
  function attributeExpression(): Filter {
    const word = peekWord();
    if (word === undefined) throw refuse('an attribute expected.');
    at += 1;
    const path = pathOf(word);
    if (tokens[at]?.kind !== '[') return comparison(path);
    if (path.sub !== undefined) throw refuse(`"${word}" cannot take a value filter.`);
    at += 1;
    let inner = expression();
    expect(']');
    const then = peekWord();
    if (then?.startsWith('.')) {
      at += 1;
      inner = { op: 'and', left: inner, right: comparison(pathOf(then.slice(1))) };
    }
    return { op: 'has', attr: path.attr, filter: inner };
  }
  function comparison(path: AttributePath): Filter {
    const op = peekWord()?.toLowerCase();
    at += 1;
    if (op === 'pr') return { op, path };
    if (op === 'eq' || op === 'ne' || op === 'co' || op === 'sw' || op === 'ew') {
      return { op, path, value: value() };
    }
    if (op === 'gt' || op === 'ge' || op === 'lt' || op === 'le') {
      throw refuse(`"${op}" is not supported (eq, ne, co, sw, ew and pr are).`);
    }
    throw refuse('an operator (eq, ne, co, sw, ew, pr) expected.');
  }
  function value(): unknown {
    const token = tokens[at];
    at += 1;
    if (token?.kind === 'string') return token.text;
    const word = token?.kind === 'word' ? token.text : '';
    const lower = word.toLowerCase();
    if (lower === 'true' || lower === 'false') return lower === 'true';
    if (lower === 'null') return null;
    if (/^-?\d+(\.\d+)?$/.test(word)) return Number(word);
    throw refuse('a value (a string in double quotes, true, false, null or a number) expected.');
  }

  const filter = expression();
  if (at !== tokens.length) throw refuse('something follows the end of the expression.');
  return filter;
}

function pathOf(word: string): AttributePath {
  const bare = withoutCoreUrn(word);
  const parts = (bare ?? '').toLowerCase().split('.');
  if (bare === undefined || parts.length > 2 || parts.some((p) => !/^\$?[a-z][\w-]*$/.test(p))) {
    throw refuse(`"${word}" is not an attribute of this resource.`);
  }
  const [attr = '', sub] = parts;
  return sub === undefined ? { attr } : { attr, sub };
}

/**
 * Refuses a filter naming an attribute the resource does not have: `known` lists them in
 * lower case, an attribute alone (`username`) or with a sub-attribute (`emails.value`).
 */
export function checkAttributes(filter: Filter, known: ReadonlySet<string>, outer?: string) {
  const check = (path: AttributePath) => {
    const name = [outer, path.attr, path.sub].filter(Boolean).join('.');
    if (!known.has(name)) throw refuse(`"${name}" is not an attribute this service filters on.`);
  };
  switch (filter.op) {
    case 'and':
    case 'or':
      checkAttributes(filter.left, known, outer);
      checkAttributes(filter.right, known, outer);
      return;
    case 'not':
      return checkAttributes(filter.filter, known, outer);
    case 'has':
      check({ attr: filter.attr });
      return checkAttributes(filter.filter, known, filter.attr);
    default:
      return check(filter.path);
  }
}

/** The values at a path: a multi-valued attribute's each, and a complex value's `value`. */
function valuesAt(resource: JsonObject, path: AttributePath): unknown[] {
  const found = memberOf(resource, path.attr);
  const list = Array.isArray(found) ? found : found === undefined ? [] : [found];
  return list
    .map((item) => {
      if (path.sub !== undefined) return isObject(item) ? memberOf(item, path.sub) : undefined;
      return isObject(item) ? memberOf(item, 'value') : item;
    })
    .filter((v) => v !== undefined && v !== null);
}

function same(a: unknown, b: unknown, exact: boolean): boolean {
  if (typeof a === 'string' && typeof b === 'string') {
    return exact ? a === b : a.toLowerCase() === b.toLowerCase();
  }
  return a === b;
}

function textTest(op: 'co' | 'sw' | 'ew', a: unknown, b: unknown, exact: boolean): boolean {
  if (typeof a !== 'string' || typeof b !== 'string') return false;
  const [x, y] = exact ? [a, b] : [a.toLowerCase(), b.toLowerCase()];
  return op === 'co' ? x.includes(y) : op === 'sw' ? x.startsWith(y) : x.endsWith(y);
}

/**
 * Whether a resource (or, inside a value filter, one value of a multi-valued attribute)
 * matches. `caseExact` lists the case-exact attributes as `checkAttributes` names them.
 */
export function matches(
  filter: Filter,
  resource: JsonObject,
  caseExact: ReadonlySet<string>,
  outer?: string,
): boolean {
  switch (filter.op) {
    case 'and':
      return (
        matches(filter.left, resource, caseExact, outer) &&
        matches(filter.right, resource, caseExact, outer)
      );
    case 'or':
      return (
        matches(filter.left, resource, caseExact, outer) ||
        matches(filter.right, resource, caseExact, outer)
      );
    case 'not':
      return !matches(filter.filter, resource, caseExact, outer);
    case 'has': {
      const found = memberOf(resource, filter.attr);
      const items = Array.isArray(found) ? found : found === undefined ? [] : [found];
      return items.some(
        (item) => isObject(item) && matches(filter.filter, item, caseExact, filter.attr),
      );
    }
    default: {
      const { path } = filter;
      const name = [outer, path.attr, path.sub].filter(Boolean).join('.');
      const exact = caseExact.has(name);
      const values = valuesAt(resource, path);
      if (filter.op === 'pr') return values.some((v) => v !== '');
      if (filter.op === 'eq' && filter.value === null) return values.length === 0;
      const equal = values.some((v) => same(v, filter.value, exact));
      if (filter.op === 'eq') return equal;
      if (filter.op === 'ne') return !equal;
      const op = filter.op;
      return values.some((v) => textTest(op, v, filter.value, exact));
    }
  }
}
