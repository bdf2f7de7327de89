/**
 * A resource's writable attributes as SCIM names them, and what a request does to them: a POST
 * or PUT body read into a view (`viewOf`), and a PATCH's operations applied to one
 * (`applyPatch`, RFC 7644 section 3.5.2). A view holds the attributes under their own names;
 * what the service does not keep (another schema's attributes, `nickName`, `phoneNumbers`, a
 * password) is left out, and a read-only attribute (`id`, `meta`, a user's `groups`) changes
 * nothing: named in a body it is ignored, named by a PATCH's path it is `400 mutability`.
 */
import { AppError } from '../platform/errors.js';
import { type Filter, matches, parseFilter } from './filter.js';
import { isObject, type JsonObject, memberOf, withoutCoreUrn } from './values.js';

export interface AttributeSpec {
  /** Its name as answered (`userName`). */
  name: string;
  kind: 'simple' | 'complex' | 'multi';
  /** A complex or multi-valued attribute's sub-attributes that are kept. */
  sub?: readonly string[];
  /** Sub-attributes matched exactly in a value filter (`members[value eq "…"]`). */
  exact?: readonly string[];
  /** Set by the service alone. */
  readOnly?: boolean;
}

export type ResourceSpec = readonly AttributeSpec[];

/** A target of a PATCH: an attribute, a value filter on it, a sub-attribute. */
interface Target {
  attr: AttributeSpec;
  filter?: Filter;
  sub?: string;
}

function attributeOf(spec: ResourceSpec, name: string): AttributeSpec | undefined {
  const lower = name.toLowerCase();
  return spec.find((a) => a.name.toLowerCase() === lower);
}

function subOf(attr: AttributeSpec, name: string): string | undefined {
  const lower = name.toLowerCase();
  return attr.sub?.find((s) => s.toLowerCase() === lower);
}

/** One value of a complex or multi-valued attribute, its kept sub-attributes under their names. */
function element(attr: AttributeSpec, value: unknown): unknown {
  if (!isObject(value)) return attr.kind === 'multi' ? { value } : value;
  const kept: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    const sub = subOf(attr, key);
    if (sub !== undefined) kept[sub] = item;
  }
  return kept;
}

function keptValue(attr: AttributeSpec, value: unknown): unknown {
  if (attr.kind === 'simple') return value;
  if (attr.kind === 'complex') return element(attr, value);
  if (value === null || value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map((item) => element(attr, item));
}

/** The writable attributes of a POST or PUT body, under their names. */
export function viewOf(spec: ResourceSpec, body: JsonObject): JsonObject {
  const view: JsonObject = {};
  for (const [key, value] of Object.entries(body)) {
    const bare = withoutCoreUrn(key);
    const attr = bare === undefined ? undefined : attributeOf(spec, bare);
    if (attr && !attr.readOnly && value !== null) view[attr.name] = keptValue(attr, value);
  }
  return view;
}

const patchOpUrn = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/** The view after a PATCH's operations, applied in order; the view given is left as it was. */
export function applyPatch(spec: ResourceSpec, view: JsonObject, body: unknown): JsonObject {
  const operations = isObject(body) ? memberOf(body, 'Operations') : undefined;
  if (!Array.isArray(operations) || operations.length === 0) {
    throw new AppError('invalidRequest', {
      message: `A PATCH is a message of ${patchOpUrn} with its "Operations".`,
    });
  }
  const next = structuredClone(view);
  for (const operation of operations) apply(spec, next, operation);
  return next;
}

function apply(spec: ResourceSpec, view: JsonObject, operation: unknown): void {
  const op = isObject(operation) ? memberOf(operation, 'op') : undefined;
  const kind = typeof op === 'string' ? op.toLowerCase() : '';
  if (!isObject(operation) || (kind !== 'add' && kind !== 'replace' && kind !== 'remove')) {
    throw new AppError('invalidRequest', {
      message: 'Each operation has an "op": add, replace or remove.',
    });
  }
  const path = memberOf(operation, 'path');
  const value = memberOf(operation, 'value');
  if (path === undefined || path === null || path === '') {
    if (kind === 'remove') throw new AppError('noTarget', { message: 'A remove names a path.' });
    if (!isObject(value)) {
      throw new AppError('invalidValue', {
        message: 'Without a path, the value is an object of the attributes to set.',
      });
    }
    // Entra ID writes a sub-attribute as a key of its own (`"name.givenName": "…"`).
    for (const [key, item] of Object.entries(value)) {
      const target = targetOf(spec, key);
      if (target && !target.attr.readOnly) change(view, kind, target, item);
    }
    return;
  }
  if (typeof path !== 'string') throw new AppError('invalidPath');
  const target = targetOf(spec, path);
  if (!target) return;
  if (target.attr.readOnly) {
    throw new AppError('mutability', { message: `${target.attr.name} is set by this service.` });
  }
  change(view, kind, target, value);
}

const pathPattern = /^([^.[\]]+)(?:\[(.*)\])?(?:\.([^.[\]]+))?$/s;

/** A path's target; undefined for an attribute the service does not keep (ignored). */
function targetOf(spec: ResourceSpec, path: string): Target | undefined {
  const bare = withoutCoreUrn(path.trim());
  if (bare === undefined) return undefined;
  const [, name = '', filterText, subName] = pathPattern.exec(bare) ?? [];
  if (name === '') throw new AppError('invalidPath', { message: `"${path}" is not a path.` });
  const attr = attributeOf(spec, name);
  if (!attr) return undefined;
  if (subName !== undefined && attr.kind === 'simple') {
    throw new AppError('invalidPath', { message: `${attr.name} has no sub-attributes.` });
  }
  if (filterText !== undefined && attr.kind !== 'multi') {
    throw new AppError('invalidPath', { message: `${attr.name} takes no value filter.` });
  }
  const sub = subName === undefined ? undefined : subOf(attr, subName);
  // A sub-attribute the service does not keep (`name.middleName`): ignored, as its attribute is.
  if (subName !== undefined && sub === undefined) return undefined;
  return {
    attr,
    ...(filterText !== undefined ? { filter: parseFilter(filterText) } : {}),
    ...(sub !== undefined ? { sub } : {}),
  };
}

function change(view: JsonObject, kind: string, target: Target, value: unknown): void {
  const { attr, sub } = target;
  if (attr.kind === 'multi') {
    changeMulti(view, kind, target, value);
  } else if (sub !== undefined) {
    const current = isObject(view[attr.name]) ? { ...(view[attr.name] as JsonObject) } : {};
    if (kind === 'remove') delete current[sub];
    else current[sub] = value;
    view[attr.name] = current;
  } else if (kind === 'remove') {
    delete view[attr.name];
  } else if (attr.kind === 'complex' && isObject(value) && isObject(view[attr.name])) {
    // Sub-attributes not named stay as they were (RFC 7644 section 3.5.2.3).
    view[attr.name] = { ...(view[attr.name] as JsonObject), ...(element(attr, value) as object) };
  } else {
    view[attr.name] = keptValue(attr, value);
  }
}

function changeMulti(view: JsonObject, kind: string, target: Target, value: unknown): void {
  const { attr, filter, sub } = target;
  const current = Array.isArray(view[attr.name]) ? [...(view[attr.name] as unknown[])] : [];
  const items = current.filter(isObject);
  if (filter === undefined) {
    if (sub !== undefined) {
      throw new AppError('invalidPath', {
        message: `Name one value of ${attr.name} with a filter, such as ${attr.name}[type eq "work"].${sub}.`,
      });
    }
    const given = keptValue(attr, value) as JsonObject[];
    if (kind === 'replace') view[attr.name] = given;
    else if (kind === 'add')
      view[attr.name] = [...items, ...given.filter((g) => !has(attr, items, g))];
    // Entra ID removes members by listing them in the value; with none, every value goes.
    else view[attr.name] = value === undefined ? [] : items.filter((i) => !has(attr, given, i));
    return;
  }
  const scope = attr.name.toLowerCase();
  const exact = new Set((attr.exact ?? []).map((s) => `${scope}.${s.toLowerCase()}`));
  const hit = items.map((item) => matches(filter, item, exact, scope));
  if (kind === 'remove') {
    view[attr.name] =
      sub === undefined
        ? items.filter((_, i) => !hit[i])
        : items.map((item, i) => (hit[i] ? withoutKey(item, sub) : item));
    return;
  }
  if (!hit.includes(true)) {
    // `emails[type eq "work"].value` on a user without a work address adds one, as the
    // providers expect; a filter that says no more than what to find cannot make a value.
    const seed = equalities(attr, filter);
    if (!seed) throw new AppError('noTarget', { message: `No value of ${attr.name} matches.` });
    const made =
      sub !== undefined ? { ...seed, [sub]: value } : { ...seed, ...asObject(attr, value) };
    view[attr.name] = [...items, made];
    return;
  }
  view[attr.name] = items.map((item, i) => {
    if (!hit[i]) return item;
    if (sub !== undefined) return { ...item, [sub]: value };
    return kind === 'replace' ? asObject(attr, value) : { ...item, ...asObject(attr, value) };
  });
}

function asObject(attr: AttributeSpec, value: unknown): JsonObject {
  const made = element(attr, value);
  return isObject(made) ? made : {};
}

function withoutKey(item: JsonObject, key: string): JsonObject {
  const { [key]: _gone, ...rest } = item;
  return rest;
}

/** Whether `list` holds a value like `item`: the same `value` (and `type`, where given). */
function has(attr: AttributeSpec, list: readonly JsonObject[], item: JsonObject): boolean {
  const exact = attr.exact?.includes('value') ?? false;
  const key = (v: JsonObject) => {
    const text = String(v.value ?? '');
    return `${exact ? text : text.toLowerCase()}\u0000${String(v.type ?? '').toLowerCase()}`;
  };
  return list.some((other) => key(other) === key(item));
}

/** The sub-attributes a filter made only of `eq` joined by `and` sets; undefined otherwise. */
function equalities(attr: AttributeSpec, filter: Filter): JsonObject | undefined {
  if (filter.op === 'and') {
    const left = equalities(attr, filter.left);
    const right = equalities(attr, filter.right);
    return left && right ? { ...left, ...right } : undefined;
  }
  if (filter.op !== 'eq' || filter.path.sub !== undefined) return undefined;
  const sub = subOf(attr, filter.path.attr);
  return sub === undefined ? undefined : { [sub]: filter.value };
}
