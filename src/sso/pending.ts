/**
 * A sign-in on its way through the identity provider: the tenant, the state, nonce and PKCE
 * verifier the callback must match, and the page to go to. Kept in the browser as a short-lived
 * cookie, sealed (compact JWE under a key derived from the data key), so that no instance keeps
 * anything and any instance finishes what another started; nothing in it can be read or changed.
 */
import { hkdfSync } from 'node:crypto';
import { EncryptJWT, errors, jwtDecrypt } from 'jose';

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
  return new Uint8Array(hkdfSync('sha256', dataKey, '', 'consent-service/sso/pending/v1', 32));
}

export function sealPending(key: Uint8Array, pending: PendingSignIn): Promise<string> {
  return new EncryptJWT({
    tid: pending.tenantId,
    st: pending.state,
    nn: pending.nonce,
    cv: pending.codeVerifier,
    nx: pending.next,
  })
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' })
    .setAudience(audience)
    .setIssuedAt()
    .setExpirationTime(`${pendingSeconds}s`)
    .encrypt(key);
}

/** The pending sign-in, or undefined for a cookie this service did not make as it is, or expired. */
export async function openPending(
  key: Uint8Array,
  token: string | undefined,
): Promise<PendingSignIn | undefined> {
  if (!token) return undefined;
  try {
    const { payload } = await jwtDecrypt(token, key, {
      audience,
      keyManagementAlgorithms: ['dir'],
      contentEncryptionAlgorithms: ['A256GCM'],
    });
    const { tid, st, nn, cv, nx } = payload;
    if ([tid, st, nn, cv, nx].some((value) => typeof value !== 'string')) return undefined;
    return {
      tenantId: tid as string,
      state: st as string,
      nonce: nn as string,
      codeVerifier: cv as string,
      next: nx as string,
    };
  } catch (error) {
    if (error instanceof errors.JOSEError || error instanceof TypeError) return undefined;
    throw error;
  }
}
