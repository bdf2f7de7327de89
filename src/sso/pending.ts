/**
 * A sign-in on its way through the identity provider: the tenant, the state, nonce and PKCE
 * verifier the callback must match, and the page to go to. Kept in the browser as a short-lived
 * cookie, sealed (src/platform/sealed-claims.ts), so that no instance keeps anything and any
 * instance finishes what another started; nothing in it can be read or changed.
 */
import { derivedKey, openClaims, sealClaims } from '../platform/sealed-claims.js';

export interface PendingSignIn {
  tenantId: string;
  state: string;
  nonce: string;
  codeVerifier: string;
  /** The back-office page asked for before signing in ('' for the home page). */
  next: string;
}

/** How long a person has at their provider before the sign-in must start again. */
export const pendingSeconds = 10 * 60;

const audience = 'consent-service/sso-pending';

export function pendingKey(dataKey: Buffer): Uint8Array {
  return derivedKey(dataKey, 'consent-service/sso/pending/v1');
}

export function sealPending(key: Uint8Array, pending: PendingSignIn): Promise<string> {
  const claims = {
    tid: pending.tenantId,
    st: pending.state,
    nn: pending.nonce,
    cv: pending.codeVerifier,
    nx: pending.next,
  };
  return sealClaims(key, audience, claims, `${pendingSeconds}s`);
}

/** The pending sign-in, or undefined for a cookie this service did not make as it is, or expired. */
export async function openPending(
  key: Uint8Array,
  token: string | undefined,
): Promise<PendingSignIn | undefined> {
  if (!token) return undefined;
  const opened = await openClaims(key, audience, token);
  if (!opened.ok) return undefined;
  const { tid, st, nn, cv, nx } = opened.claims;
  if ([tid, st, nn, cv, nx].some((value) => typeof value !== 'string')) return undefined;
  return {
    tenantId: tid as string,
    state: st as string,
    nonce: nn as string,
    codeVerifier: cv as string,
    next: nx as string,
  };
}
