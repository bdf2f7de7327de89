/**
 * The token that tells the banner a visitor is signed in as one of the tenant's customers
 * (docs/cookies.md, "Signed-in visitors"). The site's backend asks for one through the API for
 * the customer it has signed in, and writes it in its page; the banner sends it with a choice,
 * which is then the customer's too, and with the question of what the customer chose before.
 * Nothing is stored: the token carries what it says, sealed, until it expires.
 */
import type { JWTPayload } from 'jose';
import type { Executor } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { derivedKey, openClaims, sealClaims } from '../platform/sealed-claims.js';
import { findSystemByScope } from './repository.js';

/** The token's key, derived from the data key: any instance opens what another made. */
export function customerTokenKey(dataKey: Buffer): Uint8Array {
  return derivedKey(dataKey, 'consent-service/cookies/customer-token/v1');
}

/** What a token says: the tenant, its customer, the API key that vouched, the one system if any. */
export interface CustomerTokenClaims {
  tenantId: string;
  customerId: string;
  apiKeyId: string;
  /** The system it is for; absent: any system of the tenant. */
  systemId?: string;
}

// Sealed claims (src/platform/sealed-claims.ts): the page can neither read the customer id
// nor make a token.
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
  const token = await sealClaims(key, audience, payload, expiresAt, { issuedAt: now });
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
  const opened = await openClaims(key, audience, token, now);
  if (!opened.ok) return undefined;
  const payload = opened.claims;
  const { tid, cid, key: apiKeyId, sys } = payload;
  if (typeof tid !== 'string' || typeof cid !== 'string' || typeof apiKeyId !== 'string') {
    return undefined;
  }
  if (tid !== system.tenantId || (sys !== undefined && sys !== system.systemId)) return undefined;
  return { tenantId: tid, customerId: cid, apiKeyId, systemId: system.systemId };
}
