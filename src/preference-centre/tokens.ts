import { createHmac, timingSafeEqual } from 'node:crypto';
import type { JWTPayload } from 'jose';
import { derivedKey, openClaims, sealClaims } from '../platform/sealed-claims.js';

/**
 * The preference centre's secrets, each derived from the data key (HKDF-SHA256, one label each):
 * every instance of the service holds the data key, so any instance opens what another made,
 * and nothing new needs keeping.
 */
export interface PreferenceSecrets {
  readonly link: Uint8Array;
  readonly session: Uint8Array;
  readonly form: Buffer;
  readonly code: Buffer;
}

export function preferenceSecrets(dataKey: Buffer): PreferenceSecrets {
  const derive = (label: string) =>
    derivedKey(dataKey, `consent-service/preference-centre/${label}`);
  return {
    link: derive('link/v1'),
    session: derive('session/v1'),
    form: Buffer.from(derive('form/v1')),
    code: Buffer.from(derive('code/v1')),
  };
}

/**
 * What a link and the session it opens both carry: the tenant, the customer, the API key that
 * asked for the link (it vouched for who the customer is, and stands as the key of every record
 * they make), and the backend's `return_url` and `locale`.
 */
export interface CustomerClaims {
  tenantId: string;
  customerId: string;
  apiKeyId: string;
  returnUrl?: string;
  locale?: string;
}

/** A link's claims, with its own id (opened once) and when it expires. */
export interface LinkClaims extends CustomerClaims {
  linkId: string;
  expiresAt: Date;
}

/** A session's claims: its id, when it began (it ends after a maximum) and when it idles out. */
export interface SessionClaims extends CustomerClaims {
  sessionId: string;
  startedAt: Date;
}

// Sealed claims (src/platform/sealed-claims.ts): neither altered nor made by anyone else, and
// the customer id they name cannot be read from the URL, the browser's history or a proxy's log.
const linkAudience = 'consent-service/preference-link';
const sessionAudience = 'consent-service/preference-session';

function payloadOf(claims: CustomerClaims): JWTPayload {
  return {
    tid: claims.tenantId,
    cid: claims.customerId,
    key: claims.apiKeyId,
    ...(claims.returnUrl === undefined ? {} : { ret: claims.returnUrl }),
    ...(claims.locale === undefined ? {} : { loc: claims.locale }),
  };
}

function claimsOf(payload: JWTPayload): CustomerClaims | undefined {
  const { tid, cid, key, ret, loc } = payload;
  if (typeof tid !== 'string' || typeof cid !== 'string' || typeof key !== 'string')
    return undefined;
  return {
    tenantId: tid,
    customerId: cid,
    apiKeyId: key,
    ...(typeof ret === 'string' ? { returnUrl: ret } : {}),
    ...(typeof loc === 'string' ? { locale: loc } : {}),
  };
}

export function sealLink(secrets: PreferenceSecrets, claims: LinkClaims): Promise<string> {
  return sealClaims(secrets.link, linkAudience, payloadOf(claims), claims.expiresAt, {
    id: claims.linkId,
  });
}

/** Why a link was refused, as its audit entry names it. */
export type LinkRefusal = 'invalid' | 'expired' | 'reused' | 'other-tenant';

/**
 * A link's claims, or why it cannot open: `invalid` when it was not made by this service as it
 * is (altered, cut short, another key), `expired` past its time (its claims, for the audit).
 */
export async function openLink(
  secrets: PreferenceSecrets,
  token: string,
  now: Date,
): Promise<
  { ok: true; claims: LinkClaims } | { ok: false; why: LinkRefusal; claims?: LinkClaims }
> {
  const opened = await openClaims(secrets.link, linkAudience, token, now);
  const claims = opened.ok || opened.why === 'expired' ? linkClaimsOf(opened.claims) : undefined;
  if (!claims) return { ok: false, why: 'invalid' };
  return opened.ok ? { ok: true, claims } : { ok: false, why: 'expired', claims };
}

function linkClaimsOf(payload: JWTPayload): LinkClaims | undefined {
  const claims = claimsOf(payload);
  if (!claims || typeof payload.jti !== 'string' || typeof payload.exp !== 'number') {
    return undefined;
  }
  return { ...claims, linkId: payload.jti, expiresAt: new Date(payload.exp * 1000) };
}

export function sealSession(
  secrets: PreferenceSecrets,
  claims: SessionClaims,
  idleUntil: Date,
): Promise<string> {
  return sealClaims(
    secrets.session,
    sessionAudience,
    { ...payloadOf(claims), sid: claims.sessionId },
    idleUntil,
    { issuedAt: claims.startedAt },
  );
}

/** A session's claims; undefined for a cookie this service did not make as it is, or expired. */
export async function openSession(
  secrets: PreferenceSecrets,
  token: string,
  now: Date,
): Promise<SessionClaims | undefined> {
  const opened = await openClaims(secrets.session, sessionAudience, token, now);
  if (!opened.ok) return undefined;
  const payload = opened.claims;
  const claims = claimsOf(payload);
  if (!claims || typeof payload.sid !== 'string' || typeof payload.iat !== 'number') {
    return undefined;
  }
  return { ...claims, sessionId: payload.sid, startedAt: new Date(payload.iat * 1000) };
}

/**
 * The form token of a session's pages: an HMAC of its id, so that a form posted from anywhere
 * else (the page is framed with a cookie sent cross-site) is refused.
 */
export function formToken(secrets: PreferenceSecrets, sessionId: string): string {
  return createHmac('sha256', secrets.form).update(sessionId).digest('base64url');
}

export function isFormToken(
  secrets: PreferenceSecrets,
  sessionId: string,
  token: unknown,
): boolean {
  if (typeof token !== 'string') return false;
  const expected = Buffer.from(formToken(secrets, sessionId));
  const given = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * What is kept of a one-time code: an HMAC of the row's id and the code, so that the table alone
 * (a backup, a read replica) does not give the code, and a code fits only the row it was made for.
 */
export function codeHash(secrets: PreferenceSecrets, codeId: string, code: string): string {
  return createHmac('sha256', secrets.code).update(`${codeId}:${code}`).digest('base64url');
}

export function isCodeHash(stored: string, given: string): boolean {
  const a = Buffer.from(stored);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The form token of the pages before any session (asking for a code, giving it): a double
 * submit. A random value lives in a short cookie of the tenant's pages only; the form carries
 * its HMAC. Another site can make the browser send the cookie but can neither read it nor make
 * the HMAC, so a form it posts lacks the right token.
 */
export function anonymousFormToken(secrets: PreferenceSecrets, cookieValue: string): string {
  return formToken(secrets, `anonymous:${cookieValue}`);
}

export function isAnonymousFormToken(
  secrets: PreferenceSecrets,
  cookieValue: string,
  token: unknown,
): boolean {
  return isFormToken(secrets, `anonymous:${cookieValue}`, token);
}
