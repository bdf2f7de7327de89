import { AppError } from '../platform/errors.js';
import { checkAttributes, matches, parseFilter } from './filter.js';
import type { JsonObject } from './values.js';

export const listResponseSchema = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

/** The most resources one page holds (`filter.maxResults` of the ServiceProviderConfig). */
export const maxResults = 200;
const defaultCount = 100;

/** The query parameters of a list (RFC 7644 sections 3.4.2 and 3.9), as sent. */
export interface ListQuery {
  filter?: string;
  startIndex?: string;
  count?: string;
  attributes?: string;
  excludedAttributes?: string;
}

/** What a filter on a kind of resource may name, and which of those match exactly. */
export interface FilterRules {
  known: ReadonlySet<string>;
  caseExact: ReadonlySet<string>;
}

function integerOf(text: string | undefined, name: string): number | undefined {
  if (text === undefined || text === '') return undefined;
  if (!/^-?\d{1,9}$/.test(text)) {
    throw new AppError('invalidValue', { message: `${name} is an integer.` });
  }
  return Number(text);
}

/**
 * A page of the resources that match the filter, in SCIM's list format. `startIndex` counts
 * from 1 (less is 1), `count` is at most `maxResults` (less than 0 is 0, which answers only
 * `totalResults`).
 */
export function listResponse(
  resources: readonly JsonObject[],
  query: ListQuery,
  rules: FilterRules,
): JsonObject {
  const filterText = query.filter?.trim();
  let found = resources;
  if (filterText) {
    const filter = parseFilter(filterText);
    checkAttributes(filter, rules.known);
    found = resources.filter((resource) => matches(filter, resource, rules.caseExact));
  }
  const startIndex = Math.max(1, integerOf(query.startIndex, 'startIndex') ?? 1);
  const count = Math.min(maxResults, Math.max(0, integerOf(query.count, 'count') ?? defaultCount));
  const page = found.slice(startIndex - 1, startIndex - 1 + count);
  return {
    schemas: [listResponseSchema],
    totalResults: found.length,
    startIndex,
    itemsPerPage: page.length,
    Resources: page.map((resource) => projected(resource, query)),
  };
}

/** Attributes always answered, whatever `attributes` and `excludedAttributes` say. */
const always = new Set(['schemas', 'id']);

const namesIn = (list: string | undefined) =>
  new Set(
    (list ?? '')
      .split(',')
      .map((name) => name.trim().replace(/^urn:ietf:params:scim:schemas:core:2\.0:\w+:/i, ''))
      .map((name) => name.split('.')[0]?.toLowerCase() ?? '')
      .filter(Boolean),
  );

/**
 * A resource with only the attributes asked for (`attributes`), or without those left out
 * (`excludedAttributes`: Entra ID reads groups with `excludedAttributes=members`), by their
 * top-level names.
 */
export function projected(resource: JsonObject, query: ListQuery): JsonObject {
  const only = namesIn(query.attributes);
  const without = namesIn(query.excludedAttributes);
  if (only.size === 0 && without.size === 0) return resource;
  return Object.fromEntries(
    Object.entries(resource).filter(([key]) => {
      const name = key.toLowerCase();
      if (always.has(name)) return true;
      return only.size > 0 ? only.has(name) : !without.has(name);
    }),
  );
}
