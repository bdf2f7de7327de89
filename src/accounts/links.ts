import { randomBytes } from 'node:crypto';
import type { Executor, Trx } from '../platform/db.js';
import { sha256Hex } from '../platform/hashing.js';
import { nowIso } from '../platform/time.js';
import {
  findAccountToken,
  insertAccountToken,
  retireAccountTokens,
  useAccountToken,
} from './repository.js';
import type { AccountTokenRow } from './table.js';

/**
 * One-time links that let a person set their password: an invitation, or a reset. The link
 * carries 256 random bits of which the store keeps only a SHA-256; it works once, until it
 * expires, and a new link for the same account retires the older ones.
 */
export type LinkPurpose = AccountTokenRow['purpose'];

/** How long a link works: an invitation may wait for a weekend, a reset is asked for now. */
export const linkLifetimeHours: Record<LinkPurpose, number> = {
  invitation: 72,
  password_reset: 1,
};

export interface LinkHolder {
  purpose: LinkPurpose;
  kind: AccountTokenRow['account_kind'];
  accountId: string;
}

/** Makes a link's token for the account (retiring its earlier ones); answers the token. */
export async function issueLink(
  trx: Trx,
  holder: LinkHolder,
  createdBy: string,
  now = new Date(),
): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await retireAccountTokens(trx, holder.kind, holder.accountId, now.toISOString());
  await insertAccountToken(trx, {
    token_hash: sha256Hex(token),
    purpose: holder.purpose,
    account_kind: holder.kind,
    account_id: holder.accountId,
    created_by: createdBy,
    created_at: now.toISOString(),
    expires_at: new Date(
      now.getTime() + linkLifetimeHours[holder.purpose] * 3_600_000,
    ).toISOString(),
    used_at: null,
  });
  return token;
}

/**
 * The page a one-time link opens, in the back-office (its path is fixed: `/backoffice/password`).
 * The token travels as `token=`, a parameter the request log redacts, and the page's form sends
 * it back in its body. The back-office and the command line both hand out this address.
 */
export function passwordLinkUrl(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl}/backoffice/password?token=${token}`;
}

function isLinkToken(token: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(token);
}

/** Who a link is for, while it can still be used; undefined otherwise. */
export async function readLink(
  db: Executor,
  token: string,
  now = new Date(),
): Promise<LinkHolder | undefined> {
  if (!isLinkToken(token)) return undefined;
  const row = await findAccountToken(db, sha256Hex(token));
  if (!row || row.used_at !== null || row.expires_at <= now.toISOString()) return undefined;
  return { purpose: row.purpose, kind: row.account_kind, accountId: row.account_id };
}

/** Uses a link: who it was for, or undefined when it was used (by this call or another) or expired. */
export async function useLink(trx: Executor, token: string): Promise<LinkHolder | undefined> {
  const holder = await readLink(trx, token);
  if (!holder) return undefined;
  return (await useAccountToken(trx, sha256Hex(token), nowIso())) ? holder : undefined;
}

/** Retires the account's links not yet used (its user was removed or disabled). */
export async function retireLinks(
  trx: Trx,
  kind: LinkHolder['kind'],
  accountId: string,
): Promise<void> {
  await retireAccountTokens(trx, kind, accountId, nowIso());
}
