/**
 * What the public cookie endpoints do, with no API key: the banner script of a system's
 * published configuration, and the recording of a visitor's choice from one of the system's
 * origins. Routes (routes.ts) only carry HTTP.
 */
import ipaddr from 'ipaddr.js';
import { LRUCache } from 'lru-cache';
import { Compile } from 'typebox/compile';
import type { Executor } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { sha256Hex } from '../platform/hashing.js';
import { validate } from '../platform/validation.js';
import { findSubjectId, type SubjectVault } from '../subjects/index.js';
import { canonicalLocale } from '../templates/index.js';
import type { BannerConfig, ChoiceAnswer, ChoiceMethod } from './banner-config.js';
import { bannerScript } from './banner-script.js';
import { bannerConfig, type ConfigurationContent } from './content.js';
import { openCustomerToken } from './customer-tokens.js';
import { findLatestCustomerChoice } from './decisions-repository.js';
import { type Declaration, declarationOf } from './declaration.js';
import { modeFor } from './regions.js';
import { findPublished, findPublishedOnce } from './repository.js';
import { ChoiceBodySchema } from './schemas.js';
import { variantOfVisitor } from './variants.js';
import { visitorLookup } from './visitor.js';
import type { CookieChoiceWriter } from './writes.js';

/** A system as the public endpoints need it, with its published configuration if any. */
interface PublicSystem {
  tenantId: string;
  systemId: string;
  scope: string;
  origins: readonly string[];
  address: 'full' | 'truncated' | 'hashed';
  published?: {
    id: string;
    version: number;
    content: ConfigurationContent;
    contentSha256: string;
    fingerprint: string;
  };
}

/**
 * A publish, an unpublish or a change of origins is seen by every request that starts a second
 * later on every instance: each keeps what it read of a system for a second at most.
 */
const keptMs = 1_000;

export interface CookiePublic {
  /** The system of a scope, or undefined: unknown, or its tenant disabled. */
  system(scope: string): Promise<PublicSystem | undefined>;
}

export function cookiePublic(db: Executor): CookiePublic {
  const cache = new LRUCache<string, { value: PublicSystem | null }>({ max: 10_000, ttl: keptMs });
  return {
    async system(scope) {
      const kept = cache.get(scope);
      if (kept) return kept.value ?? undefined;
      const row = /^cs_[0-9a-f]{20}$/.test(scope) ? await findPublished(db, scope) : undefined;
      const value: PublicSystem | null =
        !row || row.disabled_at !== null
          ? null
          : {
              tenantId: row.tenant_id,
              systemId: row.system_id,
              scope: row.scope,
              origins: JSON.parse(row.origins) as string[],
              address: row.cookie_address,
              ...(row.configuration_id && row.content && row.content_sha256 && row.fingerprint
                ? {
                    published: {
                      id: row.configuration_id,
                      version: Number(row.version),
                      content: JSON.parse(row.content) as ConfigurationContent,
                      contentSha256: row.content_sha256,
                      fingerprint: row.fingerprint,
                    },
                  }
                : {}),
            };
      cache.set(scope, { value });
      return value ?? undefined;
    },
  };
}

/** The banner script of a system's published configuration: its bytes and its ETag. */
export interface ServedScript {
  /**
   * UTF-8, encoded once: sent as a string, the script's 14 KB (Thai texts included) were
   * measured (`Buffer.byteLength`) and encoded again on every request, which took the route from
   * about 50 to 72 µs of server CPU (docs/architecture.md, "Cookie consent"). Its ETag, the hash
   * of the same bytes, is unchanged.
   */
  body: Buffer;
  etag: string;
  /** It differs by the visitor's region: the configuration has rules by region. */
  byRegion: boolean;
}

const scripts = new LRUCache<string, ServedScript>({ max: 2_000 });

/**
 * The script for a scope, or `404 1004` when the scope is unknown or nothing is published. It
 * differs only by the configuration, whether the request carried `Sec-GPC: 1` and the mode of
 * the visitor's region's rule, so each variant is made once and kept (its ETag is the hash of
 * its bytes).
 */
export async function servedScript(
  publicApi: CookiePublic,
  scope: string,
  options: { gpc: boolean; publicBaseUrl: string; region: string | null },
): Promise<ServedScript> {
  const system = await publicApi.system(scope);
  if (!system?.published) throw new AppError('notFound');
  const { published } = system;
  const { content } = published;
  const mode = modeFor(content.regions, content.mode ?? 'opt-in', options.region);
  const key = `${published.id}\u0000${published.contentSha256}\u0000${options.gpc}\u0000${mode}\u0000${options.publicBaseUrl}`;
  const kept = scripts.get(key);
  if (kept) return kept;
  const config: BannerConfig = bannerConfig(published.content, {
    scope: system.scope,
    decisions_url: `${options.publicBaseUrl}/cookies/v1/${system.scope}/decisions`,
    declaration_url: `${options.publicBaseUrl}/cookies/v1/${system.scope}/declaration.json`,
    configuration: {
      id: published.id,
      version: published.version,
      fingerprint: published.fingerprint,
    },
    gpc: options.gpc,
    mode,
  });
  const body = Buffer.from(bannerScript(config), 'utf8');
  const made = {
    body,
    etag: `"${sha256Hex(body).slice(0, 32)}"`,
    byRegion: (content.regions ?? []).length > 0,
  };
  scripts.set(key, made);
  return made;
}

/**
 * The declaration of a system's published configuration, with the origins that may frame its
 * page; `404 1004` when the scope is unknown or nothing is published.
 */
export async function publishedDeclaration(
  publicApi: CookiePublic,
  scope: string,
): Promise<{ declaration: Declaration; origins: readonly string[] }> {
  const system = await publicApi.system(scope);
  if (!system?.published) throw new AppError('notFound');
  const { published } = system;
  return {
    declaration: declarationOf(published.content, { id: published.id, version: published.version }),
    origins: system.origins,
  };
}

/** Told of a choice refused for its page's origin (refused-origins.ts counts them). */
export type OriginRefused = (
  system: { tenantId: string; systemId: string },
  origin: string,
) => void;

/**
 * Whether a request's `Origin` is one of the system's: `403 1003` otherwise (no choice is
 * stored; `refused` is told of an origin that was sent). A scope that is unknown is `404 1004`.
 */
export async function allowedSystem(
  publicApi: CookiePublic,
  scope: string,
  origin: string | undefined,
  refused?: OriginRefused,
): Promise<PublicSystem> {
  const system = await publicApi.system(scope);
  if (!system) throw new AppError('notFound');
  if (origin === undefined || !system.origins.includes(origin)) {
    if (origin !== undefined) refused?.(system, origin);
    throw new AppError('originNotAllowed');
  }
  return system;
}

/** The visitor's address as the tenant keeps it: whole, its network only, or a keyed hash. */
export function keptAddress(
  vault: SubjectVault,
  tenantId: string,
  ip: string,
  how: PublicSystem['address'],
): string {
  if (how === 'full') return ip;
  if (how === 'hashed')
    return `hmac:${vault.lookup(tenantId, `cookie-address/${ip}`).slice(0, 32)}`;
  return truncatedAddress(ip);
}

/**
 * IPv4 to its /24, IPv6 to its /48 (`192.0.2.0`, `2001:db8:1::`), as analytics tools do; an
 * IPv4-mapped IPv6 address as the IPv4 one it is (ipaddr.js, as the webhooks' address policy).
 */
export function truncatedAddress(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip);
  if (address instanceof ipaddr.IPv4) return `${address.octets.slice(0, 3).join('.')}.0`;
  return new ipaddr.IPv6([...address.parts.slice(0, 3), 0, 0, 0, 0, 0]).toString();
}

export interface ChoiceRequest {
  scope: string;
  origin: string | undefined;
  /** The body as sent: JSON text (`text/plain` from `sendBeacon`, or `application/json`). */
  body: unknown;
  ip: string;
  userAgent: string | null;
  /** Where the visitor is (src/platform/visitor-region.ts); null when unknown. */
  region: string | null;
}

/**
 * Records a visitor's choice: its origin must be the system's, its configuration one the system
 * published, its categories exactly the configuration's with the required ones granted, and its
 * method true to them. `201` with the decision's id, or `200` for a retry already recorded.
 * With a customer token that opens for this site (customer-tokens.ts), the choice is the
 * customer's too; with one that does not (expired, altered, another site's), it is recorded all
 * the same, the visitor's alone: a choice is never lost for its token.
 */
export async function recordChoice(
  publicApi: CookiePublic,
  db: Executor,
  writer: CookieChoiceWriter,
  vault: SubjectVault,
  request: ChoiceRequest,
  /** The key of the customer tokens (customer-tokens.ts). */
  tokenKey: Uint8Array,
): Promise<{ status: 200 | 201; answer: ChoiceAnswer }> {
  const system = await allowedSystem(publicApi, request.scope, request.origin);
  const sent = parseBody(request.body);
  // The compiled check passes a good body; only a refusal pays for `validate`'s details.
  const body = choiceBody.Check(sent) ? sent : validate(ChoiceBodySchema, sent);
  const configuration =
    system.published?.id === body.configuration_id
      ? {
          id: system.published.id,
          version: system.published.version,
          content: system.published.content,
          content_sha256: system.published.contentSha256,
        }
      : await publishedOnce(db, system, body.configuration_id);
  if (configuration.version !== body.configuration_version) {
    throw invalid('configuration_version', 'is not the version of that configuration');
  }
  const categories = checkCategories(configuration.content, body.categories, body.method);
  const locale = canonicalLocale(body.locale);
  if (!locale || !configuration.content.texts[locale]) {
    throw invalid('locale', 'must be one of the configuration’s locales');
  }
  const variant = checkVariant(configuration.content, body.variant, body.visitor_id);
  const claims =
    body.customer_token === undefined
      ? undefined
      : await openCustomerToken(tokenKey, body.customer_token, system);
  const outcome = await writer.write({
    tenantId: system.tenantId,
    systemId: system.systemId,
    scope: system.scope,
    configurationId: configuration.id,
    configurationVersion: configuration.version,
    contentSha256: configuration.content_sha256,
    // One spelling of a visitor id, whatever case a page sent it in: the one erasure looks up.
    visitorId: body.visitor_id.toLowerCase(),
    visitorLookup: visitorLookup(vault, system.tenantId, body.visitor_id.toLowerCase()),
    eventId: body.event_id,
    method: body.method,
    categories,
    locale,
    origin: request.origin as string,
    ip: keptAddress(vault, system.tenantId, request.ip, system.address),
    userAgent: request.userAgent?.slice(0, 512) ?? null,
    region: request.region,
    variant,
    customer: claims
      ? {
          id: claims.customerId,
          lookup: vault.lookup(system.tenantId, claims.customerId),
        }
      : null,
  });
  if (outcome.kind === 'conflict') {
    throw new AppError('conflict', { message: 'This event id was recorded with another choice.' });
  }
  return {
    status: outcome.kind === 'recorded' ? 201 : 200,
    answer: {
      data: {
        decision_id: outcome.decision.id,
        decided_at: outcome.decision.decided_at,
        ...(body.customer_token === undefined ? {} : { customer_linked: claims !== undefined }),
      },
    },
  };
}

/**
 * The choice's schema compiled once: interpreted by `validate` it cost 15 µs a choice, compiled
 * under 1 µs (docs/architecture.md, "Cookie consent"). The route has checked the body already;
 * this check is the service's own, for any other caller.
 */
const choiceBody = Compile(ChoiceBodySchema);

function parseBody(body: unknown): unknown {
  if (typeof body !== 'string') return body;
  try {
    return JSON.parse(body);
  } catch {
    throw new AppError('invalidRequest', { details: [{ field: '(body)', issue: 'must be JSON' }] });
  }
}

async function publishedOnce(db: Executor, system: PublicSystem, id: string) {
  const found = await findPublishedOnce(db, system.tenantId, system.systemId, id);
  if (!found) throw invalid('configuration_id', 'is not a configuration this system published');
  return {
    id: found.id,
    version: Number(found.version),
    content: JSON.parse(found.content) as ConfigurationContent,
    content_sha256: found.content_sha256,
  };
}

/**
 * The categories in the configuration's order, checked: every category of the configuration and
 * no other, the required ones granted, and the method true to them (`accept-all`: all granted;
 * `reject-all`: only the required; `gpc`: marketing and personalization, and the tenant's own
 * categories that map onto them, denied unless required).
 */
function checkCategories(
  content: ConfigurationContent,
  given: Record<string, boolean>,
  method: string,
): Record<string, boolean> {
  const keys = content.categories.map((c) => c.key);
  const unknown = Object.keys(given).filter((key) => !keys.includes(key));
  if (unknown.length > 0) throw invalid('categories', `has no category ${unknown.join(', ')}`);
  const out: Record<string, boolean> = {};
  for (const category of content.categories) {
    const value = given[category.key];
    if (value === undefined) throw invalid('categories', `must say ${category.key}`);
    if (category.required && !value) {
      throw invalid(`categories.${category.key}`, 'is required: it must be true');
    }
    out[category.key] = value;
  }
  const wrong =
    (method === 'accept-all' && content.categories.some((c) => !out[c.key])) ||
    (method === 'reject-all' && content.categories.some((c) => !c.required && out[c.key])) ||
    (method === 'gpc' &&
      content.categories.some(
        (c) =>
          /^(marketing|personalization)$/.test(c.maps_to ?? c.key) && !c.required && out[c.key],
      ));
  if (wrong) throw invalid('method', `does not match the categories (${method})`);
  return out;
}

/**
 * The choice's A/B variant: none for a configuration without variants, else the one the banner
 * draws for the visitor's id (a choice claiming another would skew the test's rates).
 */
function checkVariant(
  content: ConfigurationContent,
  sent: string | undefined,
  visitorId: string,
): string | null {
  if ((content.variants ?? []).length === 0) {
    if (sent !== undefined) throw invalid('variant', 'is for a configuration with A/B variants');
    return null;
  }
  const drawn = variantOfVisitor(content, visitorId);
  if (sent !== drawn) throw invalid('variant', `must be ${drawn}, the variant of this visitor`);
  return drawn;
}

/** A refusal naming the body's field, as the route's own validation names it (`body.…`). */
function invalid(field: string, issue: string): AppError {
  return new AppError('invalidRequest', { details: [{ field: `body.${field}`, issue }] });
}

/** A signed-in customer's newest choice on a system, as the banner applies it on another device. */
export interface CustomerChoice {
  decision_id: string;
  decided_at: string;
  configuration_id: string;
  configuration_version: number;
  /** The configuration's fingerprint: the banner applies a choice made on the one it shows. */
  fingerprint: string;
  method: ChoiceMethod;
  categories: Record<string, boolean>;
}

/**
 * What the customer a token names chose last on this system, from any device (null when they
 * never chose while signed in): from the system's origins only, `401 1002` for a token that is
 * not valid for this site or has expired.
 */
export async function customerChoice(
  publicApi: CookiePublic,
  db: Executor,
  vault: SubjectVault,
  tokenKey: Uint8Array,
  request: { scope: string; origin: string | undefined; body: unknown },
): Promise<{ choice: CustomerChoice | null }> {
  const system = await allowedSystem(publicApi, request.scope, request.origin);
  const body = parseBody(request.body);
  const token = (body as { customer_token?: unknown } | null)?.customer_token;
  if (typeof token !== 'string' || token.length === 0 || token.length > 2048) {
    throw invalid('customer_token', 'must be the customer token the site was given');
  }
  const claims = await openCustomerToken(tokenKey, token, system);
  if (!claims) {
    throw new AppError('unauthorized', {
      message: 'The customer token is not valid for this site, or has expired.',
    });
  }
  const subjectId = await findSubjectId(db, vault, system.tenantId, claims.customerId);
  const row =
    subjectId && (await findLatestCustomerChoice(db, system.tenantId, system.systemId, subjectId));
  if (!row) return { choice: null };
  return {
    choice: {
      decision_id: row.id,
      decided_at: row.decided_at,
      configuration_id: row.configuration_id,
      configuration_version: Number(row.configuration_version),
      fingerprint: row.fingerprint,
      method: row.method,
      categories: JSON.parse(row.categories) as Record<string, boolean>,
    },
  };
}
