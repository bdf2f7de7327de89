import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import type { Executor } from '../platform/db.js';
import { sha256Hex } from '../platform/hashing.js';
import { deleteFlashesExpiredBefore, takeFlashRow, upsertFlash } from './sign-in-repository.js';

/**
 * A flash: what one page leaves for the next page of the same session to show once (a new API
 * key, a draft kept through signing in again, "Draft saved."). The store keeps it sealed under a
 * key derived from the session cookie's value, which the store never holds; reading it deletes
 * it, so a reload or a second browser finds nothing.
 */

function sealingKey(sessionToken: string): Buffer {
  return createHmac('sha256', sessionToken).update('backoffice flash v1').digest();
}

function seal(sessionToken: string, name: string, value: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(sessionToken), iv);
  cipher.setAAD(Buffer.from(name, 'utf8'));
  const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

function open(sessionToken: string, name: string, sealed: string): string | undefined {
  const bytes = Buffer.from(sealed, 'base64url');
  try {
    const decipher = createDecipheriv(
      'aes-256-gcm',
      sealingKey(sessionToken),
      bytes.subarray(0, 12),
    );
    decipher.setAAD(Buffer.from(name, 'utf8'));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

/** Leaves `value` under `name` for the session, replacing one left before; ends after `ttlMs`. */
export async function keepFlash(
  db: Executor,
  sessionToken: string,
  name: string,
  value: string,
  ttlMs: number,
  now = new Date(),
): Promise<void> {
  const row = {
    session_id_hash: sha256Hex(sessionToken),
    name,
    sealed: seal(sessionToken, name, value),
    expires_at: new Date(now.getTime() + ttlMs).toISOString(),
  };
  // Flashes nobody came back for go with the next one kept.
  await deleteFlashesExpiredBefore(db, now.toISOString());
  await upsertFlash(db, row);
}

/** Takes (reads and deletes) the session's flash of that name; undefined when there is none. */
export async function takeFlash(
  db: Executor,
  sessionToken: string | null,
  name: string,
  now = new Date(),
): Promise<string | undefined> {
  if (!sessionToken) return undefined;
  const row = await takeFlashRow(db, sha256Hex(sessionToken), name);
  if (!row || row.expires_at <= now.toISOString()) return undefined;
  return open(sessionToken, name, row.sealed);
}
