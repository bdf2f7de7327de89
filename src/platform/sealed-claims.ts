/**
 * Claims a browser carries for the service and only the service reads: compact JWE (`dir`,
 * A256GCM, `jose`) under a key derived from the data key, one label per use. Authenticated
 * encryption: nobody else can read, alter or make one (as a signature would ensure), and what it
 * names (a customer id) stays out of URLs, pages and logs. Every instance holds the data key, so
 * any instance opens what another sealed, and nothing new needs keeping. The preference centre's
 * links and sessions, the banner's customer tokens and a single sign-on on its way use it.
 */
import { hkdfSync } from 'node:crypto';
import { EncryptJWT, errors, type JWTPayload, jwtDecrypt } from 'jose';

/** A 256-bit key of its own for one use, derived from the data key (HKDF-SHA256). */
export function derivedKey(dataKey: Buffer, label: string): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', dataKey, '', label, 32));
}

const header = { alg: 'dir', enc: 'A256GCM' } as const;

/** Seals `claims` for `audience` until `expiresAt` (a date, or a span such as `600s`). */
export function sealClaims(
  key: Uint8Array,
  audience: string,
  claims: JWTPayload,
  expiresAt: Date | string,
  options: { id?: string; issuedAt?: Date } = {},
): Promise<string> {
  const jwt = new EncryptJWT(claims)
    .setProtectedHeader(header)
    .setAudience(audience)
    .setIssuedAt(options.issuedAt ?? new Date())
    .setExpirationTime(expiresAt);
  if (options.id !== undefined) jwt.setJti(options.id);
  return jwt.encrypt(key);
}

/**
 * The claims of a token sealed for `audience` with `key`, as it was made; `expired` (with its
 * claims, for an audit entry) past its time; `invalid` for anything else: altered, cut short,
 * another key or audience, not a token at all.
 */
export async function openClaims(
  key: Uint8Array,
  audience: string,
  token: string,
  now = new Date(),
): Promise<
  | { ok: true; claims: JWTPayload }
  | { ok: false; why: 'expired'; claims: JWTPayload }
  | { ok: false; why: 'invalid' }
> {
  try {
    const { payload } = await jwtDecrypt(token, key, {
      audience,
      currentDate: now,
      keyManagementAlgorithms: ['dir'],
      contentEncryptionAlgorithms: ['A256GCM'],
    });
    return { ok: true, claims: payload };
  } catch (error) {
    if (error instanceof errors.JWTExpired)
      return { ok: false, why: 'expired', claims: error.payload };
    if (error instanceof errors.JOSEError || error instanceof TypeError) {
      return { ok: false, why: 'invalid' };
    }
    throw error;
  }
}
