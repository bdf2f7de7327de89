import { randomBytes } from 'node:crypto';
import type { Executor } from '../platform/db.js';
import { sha256Hex } from '../platform/hashing.js';
import { nowIso } from '../platform/time.js';
import type { Account } from './sessions.js';
import {
  deleteChallenge,
  findChallengeRow,
  insertChallenge,
  recordChallengeFailure,
} from './sign-in-repository.js';

/**
 * The step between a right password and a session, for an account with a second factor: a
 * challenge, behind its own cookie (256 random bits; the store keeps only a SHA-256), that
 * lasts five minutes and five wrong codes. Only a right code turns it into a session, and
 * only once.
 */
const lifetimeMs = 5 * 60_000;
export const challengeAttempts = 5;

export interface Challenge {
  idHash: string;
  account: Account;
  tenantId: string | null;
  email: string;
  name: string;
  /** Where to go once signed in (already checked to be a back-office page, or ''). */
  next: string;
}

export async function openChallenge(
  db: Executor,
  challenge: Omit<Challenge, 'idHash'>,
  now = new Date(),
): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await insertChallenge(db, {
    id_hash: sha256Hex(token),
    account_kind: challenge.account.kind,
    account_id: challenge.account.id,
    tenant_id: challenge.tenantId,
    email: challenge.email,
    name: challenge.name,
    next: challenge.next,
    failures: 0,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + lifetimeMs).toISOString(),
  });
  return token;
}

/** The open challenge behind a cookie's value, or undefined (unknown, expired, used up). */
export async function findChallenge(
  db: Executor,
  token: string | undefined,
): Promise<Challenge | undefined> {
  if (!token || !/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  const row = await findChallengeRow(db, sha256Hex(token));
  if (!row || row.expires_at <= nowIso() || row.failures >= challengeAttempts) return undefined;
  return {
    idHash: row.id_hash,
    account: { kind: row.account_kind, id: row.account_id },
    tenantId: row.tenant_id,
    email: row.email,
    name: row.name,
    next: row.next,
  };
}

/** Counts a wrong code; answers how many attempts are left. */
export async function failChallenge(db: Executor, idHash: string): Promise<number> {
  return challengeAttempts - (await recordChallengeFailure(db, idHash));
}

/** Ends a challenge (answered, or given up); true for the one call that ended it. */
export function closeChallenge(db: Executor, idHash: string): Promise<boolean> {
  return deleteChallenge(db, idHash);
}
