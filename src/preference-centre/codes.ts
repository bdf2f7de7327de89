import { randomInt } from 'node:crypto';
import { recordAudit } from '../audit-trail/index.js';
import type { Executor } from '../platform/db.js';
import { newId } from '../platform/ids.js';
import { findSubjectId, type SubjectVault } from '../subjects/index.js';
import type { Opener } from './links.js';
import {
  addCodeTry,
  countCodesSince,
  deleteCodesBefore,
  findCode,
  insertCode,
  useCode,
} from './repository.js';
import { isLiveKey, type PreferenceCentreSettings } from './settings.js';
import { codeHash, isCodeHash, type PreferenceSecrets, type SessionClaims } from './tokens.js';

/** A code lives this long, dies at this many wrong tries, and an address gets this many an hour. */
export const codeMinutes = 10;
export const maxCodeTries = 3;
export const codesPerHour = 5;

const addressPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * An address as the customer id it stands for: trimmed and lower-cased (a tenant whose customer
 * ids are addresses keeps them so), or undefined for what is no address.
 */
export function customerAddress(text: string): string | undefined {
  const address = text.trim().toLowerCase();
  return address.length <= 254 && addressPattern.test(address) ? address : undefined;
}

/**
 * The API key e-mail sign-ins act under, when the tenant has turned them on and the key is still
 * live (a key revoked since turns them off: nothing may be vouched for by it).
 */
export async function emailSignInKey(
  db: Executor,
  tenantId: string,
  settings: PreferenceCentreSettings,
): Promise<string | undefined> {
  const keyId = settings.emailKeyId;
  if (keyId === null) return undefined;
  return (await isLiveKey(db, tenantId, keyId)) ? keyId : undefined;
}

/** A code asked for: refused for the hour, or made (`known`: whether it may be sent). */
export type CodeRequest =
  | { kind: 'limited' }
  | { kind: 'issued'; codeId: string; code: string; known: boolean };

/**
 * Makes a one-time code for an address, whether or not the tenant knows it, so that nothing the
 * asker sees, nor how long it takes, tells them which: the caller sends the code only when
 * `known`. At most `codesPerHour` an hour for one address, counted the same for either.
 */
export async function askSignInCode(
  db: Executor,
  vault: SubjectVault,
  secrets: PreferenceSecrets,
  tenantId: string,
  address: string,
  now = new Date(),
): Promise<CodeRequest> {
  const lookup = vault.lookup(tenantId, address);
  const hourAgo = new Date(now.getTime() - 60 * 60 * 1000).toISOString();
  if ((await countCodesSince(db, tenantId, lookup, hourAgo)) >= codesPerHour) {
    return { kind: 'limited' };
  }
  const codeId = newId();
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  await insertCode(db, {
    id: codeId,
    tenant_id: tenantId,
    lookup,
    code_hash: codeHash(secrets, codeId, code),
    tries: 0,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + codeMinutes * 60 * 1000).toISOString(),
    used_at: null,
  });
  const known = (await findSubjectId(db, vault, tenantId, address)) !== undefined;
  return { kind: 'issued', codeId, code, known };
}

/**
 * Why a code was refused, as its audit entry names it: `unknown` (no such code of this tenant),
 * `other-address`, `used`, `expired`, `dead` (already tried wrong `maxCodeTries` times) or
 * `wrong` (one more try counted; `dead` tells whether that was the last).
 */
export type CodeRefusal = 'unknown' | 'other-address' | 'used' | 'expired' | 'dead' | 'wrong';

export interface CodeAttempt {
  codeId: string;
  address: string;
  code: string;
}

/**
 * Exchanges a code for a session, as a link does: the customer is the address, the key the
 * tenant's e-mail sign-in key. A use and every refusal are audit entries of the tenant, with the
 * code's id as their target and never the address.
 */
export async function useSignInCode(
  db: Executor,
  vault: SubjectVault,
  secrets: PreferenceSecrets,
  tenantId: string,
  emailKeyId: string,
  attempt: CodeAttempt,
  opener: Opener & { locale: string },
  now = new Date(),
): Promise<{ ok: true; session: SessionClaims } | { ok: false; why: CodeRefusal; dead: boolean }> {
  const row = await findCode(db, tenantId, attempt.codeId);
  const nowIso = now.toISOString();
  let why: CodeRefusal | undefined;
  if (!row) why = 'unknown';
  else if (row.lookup !== vault.lookup(tenantId, attempt.address)) why = 'other-address';
  else if (row.used_at !== null) why = 'used';
  else if (row.expires_at <= nowIso) why = 'expired';
  else if (row.tries >= maxCodeTries) why = 'dead';
  else if (!isCodeHash(row.code_hash, codeHash(secrets, row.id, attempt.code))) why = 'wrong';
  let dead = why !== undefined && why !== 'wrong';
  if (why === 'wrong' && row) {
    dead = ((await addCodeTry(db, row.id)) ?? maxCodeTries) >= maxCodeTries;
  }
  // The conditional update decides between two requests with the same right code.
  if (why === undefined && row && !(await useCode(db, row.id, nowIso, maxCodeTries))) {
    why = 'used';
    dead = true;
  }
  const { locale, ...where } = opener;
  if (why !== undefined || !row) {
    await recordAudit(db, {
      tenantId,
      actorKind: 'anonymous',
      actor: '',
      ...where,
      action: 'preference_code.refused',
      target: row?.id ?? null,
      details: { reason: why ?? 'unknown' },
    });
    return { ok: false, why: why ?? 'unknown', dead };
  }
  const session: SessionClaims = {
    tenantId,
    customerId: attempt.address,
    apiKeyId: emailKeyId,
    locale,
    sessionId: newId(),
    startedAt: now,
  };
  await recordAudit(db, {
    tenantId,
    actorKind: 'customer',
    actor: session.sessionId,
    ...where,
    action: 'preference_code.used',
    target: row.id,
    details: null,
  });
  return { ok: true, session };
}

/**
 * Forgets the codes older than an hour: each expired long before, and none counts towards an
 * address's hourly limit any more. Run with the service's other housekeeping.
 */
export function purgeOldCodes(db: Executor, now = new Date()): Promise<number> {
  return deleteCodesBefore(db, new Date(now.getTime() - 60 * 60 * 1000).toISOString());
}
