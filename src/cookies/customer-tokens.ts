/**
 * The token that tells the banner a visitor is signed in as one of the tenant's customers
 * (docs/cookies.md, "Signed-in visitors"). The site's backend asks for one through the API for
 * the customer it has signed in, and writes it in its page; the banner sends it with a choice,
 * which is then the customer's too, and with the question of what the customer chose before.
 * Nothing is stored: the token carries what it says, sealed, until it expires.
 */
import { hkdfSync } from 'node:crypto';
import { EncryptJWT, errors, type JWTPayload, jwtDecrypt } from 'jose';
import type { Executor } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { findSystemByScope } from './repository.js';

/** The token's key, derived from the data key: any instance opens what another made. */
export function customerTokenKey(dataKey: Buffer): Uint8Array {
  return new Uint8Array(
    hkdfSync('sha256', dataKey, '', 'consent-service/cookies/customer-token/v1', 32),
  );
}

/** What a token says: the tenant, its customer, the API key that vouched, the one system if any. */
export interface CustomerTokenClaims {
  tenantId: string;
  customerId: string;
  apiKeyId: string;
  /** The system it is for; absent: any system of the tenant. */
  systemId?: string;
}

// Compact JWE under the service's own key, as the preference centre's links: neither altered
// nor made by anyone else, and the customer id it names cannot be read from the page's HTML.
const header = { alg: 'dir', enc: 'A256GCM' } as const;
const audience = 'consent-service/cookie-customer';

/** Seconds a token lasts when the request does not say: a page view's lifetime, with room. */
export const defaultTokenSeconds = 60 * 60;

export interface MintedToken {
  token: string;
  expires_at: string;
}

/**
 * A token for a customer of the caller's tenant, for one of its systems (by scope) or all:
 * `400 1001` for a scope that is not one of the tenant's systems.
 */
export async function mintCustomerToken(
  db: Executor,
  key: Uint8Array,
  caller: { tenantId: string; apiKeyId: string },
  customerId: string,
  request: { system?: string | undefined; ttl_seconds?: number | undefined },
  now = new Date(),
): Promise<MintedToken> {
  let systemId: string | undefined;
  if (request.system !== undefined) {
    const system = await findSystemByScope(db, caller.tenantId, request.system);
    if (!system) {
      throw new AppError('invalidRequest', {
        details: [
          { field: 'body.system', issue: 'is not the scope of one of your cookie systems' },
        ],
      });
    }
    systemId = system.id;
  }
  // Whole seconds: the token's expiry is in seconds, and the answer says the same instant.
  const expiresAt = new Date(
    Math.floor(now.getTime() / 1000) * 1000 + (request.ttl_seconds ?? defaultTokenSeconds) * 1000,
  );
  const payload: JWTPayload = {
    tid: caller.tenantId,
    cid: customerId,
    key: caller.apiKeyId,
    ...(systemId === undefined ? {} : { sys: systemId }),
  };
  const token = await new EncryptJWT(payload)
    .setProtectedHeader(header)
    .setAudience(audience)
    .setIssuedAt(Math.floor(now.getTime() / 1000))
    .setExpirationTime(expiresAt)
    .encrypt(key);
  return { token, expires_at: expiresAt.toISOString() };
}

/**
 * A token's claims when it was made by this service, for this tenant and system, and has not
 * expired; undefined otherwise (the banner's choice is then the visitor's alone).
 */
export async function openCustomerToken(
  key: Uint8Array,
  token: string,
  system: { tenantId: string; systemId: string },
  now = new Date(),
): Promise<CustomerTokenClaims | undefined> {
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtDecrypt(token, key, {
      audience,
      currentDate: now,
      keyManagementAlgorithms: ['dir'],
      contentEncryptionAlgorithms: ['A256GCM'],
    }));
  } catch (error) {
    if (error instanceof errors.JOSEError || error instanceof TypeError) return undefined;
    throw error;
  }
  const { tid, cid, key: apiKeyId, sys } = payload;
  if (typeof tid !== 'string' || typeof cid !== 'string' || typeof apiKeyId !== 'string') {
    return undefined;
  }
  if (tid !== system.tenantId || (sys !== undefined && sys !== system.systemId)) return undefined;
  return { tenantId: tid, customerId: cid, apiKeyId, systemId: system.systemId };
}
