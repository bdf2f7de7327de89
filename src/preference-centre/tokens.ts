import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { EncryptJWT, errors, type JWTPayload, jwtDecrypt } from 'jose';

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
    new Uint8Array(
      hkdfSync('sha256', dataKey, '', `consent-service/preference-centre/${label}`, 32),
    );
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

// Compact JWE, `dir` with A256GCM: authenticated encryption under the service's own key, so a
// token can be neither altered nor made by anyone else (as a signature ensures), and the
// customer id it names cannot be read from the URL, the browser's history or a proxy's log.
const header = { alg: 'dir', enc: 'A256GCM' } as const;
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
  return new EncryptJWT(payloadOf(claims))
    .setProtectedHeader(header)
    .setAudience(linkAudience)
    .setJti(claims.linkId)
    .setIssuedAt()
    .setExpirationTime(claims.expiresAt)
    .encrypt(secrets.link);
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
  try {
    const { payload } = await jwtDecrypt(token, secrets.link, {
      audience: linkAudience,
      currentDate: now,
      keyManagementAlgorithms: ['dir'],
      contentEncryptionAlgorithms: ['A256GCM'],
    });
    const claims = linkClaimsOf(payload);
    return claims ? { ok: true, claims } : { ok: false, why: 'invalid' };
  } catch (error) {
    if (error instanceof errors.JWTExpired) {
      const claims = linkClaimsOf(error.payload);
      return claims ? { ok: false, why: 'expired', claims } : { ok: false, why: 'invalid' };
    }
    if (error instanceof errors.JOSEError || error instanceof TypeError) {
      return { ok: false, why: 'invalid' };
    }
    throw error;
  }
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
  return new EncryptJWT({ ...payloadOf(claims), sid: claims.sessionId })
    .setProtectedHeader(header)
    .setAudience(sessionAudience)
    .setIssuedAt(claims.startedAt)
    .setExpirationTime(idleUntil)
    .encrypt(secrets.session);
}

/** A session's claims; undefined for a cookie this service did not make as it is, or expired. */
export async function openSession(
  secrets: PreferenceSecrets,
  token: string,
  now: Date,
): Promise<SessionClaims | undefined> {
  try {
    const { payload } = await jwtDecrypt(token, secrets.session, {
      audience: sessionAudience,
      currentDate: now,
      keyManagementAlgorithms: ['dir'],
      contentEncryptionAlgorithms: ['A256GCM'],
    });
    const claims = claimsOf(payload);
    if (!claims || typeof payload.sid !== 'string' || typeof payload.iat !== 'number') {
      return undefined;
    }
    return { ...claims, sessionId: payload.sid, startedAt: new Date(payload.iat * 1000) };
  } catch (error) {
    if (error instanceof errors.JOSEError || error instanceof TypeError) return undefined;
    throw error;
  }
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
