import { type Actor, recordAudit } from '../audit-trail/index.js';
import type { Executor, Trx } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { nowIso } from '../platform/time.js';
import { newRecoveryCodes, recoveryCodeHash } from './recovery-codes.js';
import {
  countRecoveryCodesLeft,
  deleteRecoveryCodes,
  findTwoFactor,
  insertRecoveryCodes,
  updateTwoFactor,
  useRecoveryCode,
} from './sign-in-repository.js';
import { newTotpSecret, qrCodeSvg, totpAlreadyUsed, totpUri, verifyTotp } from './totp.js';

/**
 * Two-factor sign-in: a TOTP secret (RFC 6238) shared with the person's authenticator app, and
 * ten one-time recovery codes for when the app is lost. The secret is kept sealed under the data
 * key (`SecretBox`); the codes as hashes. A code is good once: the last time step used is kept.
 */

/** Whose second factor: a tenant's user or an operator. */
export interface FactorOwner {
  kind: 'user' | 'operator';
  id: string;
}

/** Seals secrets under the data key, bound to the account they belong to. */
export interface SecretBox {
  seal(accountId: string, plain: string): string;
  open(accountId: string, sealed: string): string;
}

export const issuer = 'Consent back-office';

export interface TwoFactorState {
  enabled: boolean;
  since: string | null;
  recoveryCodesLeft: number;
}

export async function twoFactorState(db: Executor, owner: FactorOwner): Promise<TwoFactorState> {
  const row = await findTwoFactor(db, owner);
  if (!row?.totp_secret) return { enabled: false, since: null, recoveryCodesLeft: 0 };
  return {
    enabled: true,
    since: row.two_factor_since,
    recoveryCodesLeft: await countRecoveryCodesLeft(db, owner),
  };
}

/** A new secret to enrol, with what the enrolment page shows: its URI as a QR code, and itself. */
export async function enrolment(
  email: string,
  secret = newTotpSecret(),
): Promise<{ secret: string; uri: string; qrSvg: string }> {
  const uri = totpUri(secret, email, issuer);
  return { secret, uri, qrSvg: await qrCodeSvg(uri) };
}

/**
 * Turns the second factor on once the person typed a code their app made from `secret`; answers
 * the recovery codes, to be shown this once. Wrong code: `400 1001`.
 */
export async function confirmEnrolment(
  trx: Trx,
  box: SecretBox,
  owner: FactorOwner,
  secret: string,
  code: string,
  actor: Actor,
): Promise<string[]> {
  const step = verifyTotp(secret, code, null);
  if (step === undefined) {
    throw new AppError('invalidRequest', {
      message:
        'This code is not the one your app shows now. Check the time on your phone, and type the newest code.',
    });
  }
  await updateTwoFactor(trx, owner, {
    totp_secret: box.seal(owner.id, secret),
    totp_last_step: step,
    two_factor_since: nowIso(),
  });
  const codes = await replaceRecoveryCodes(trx, owner);
  await recordAudit(trx, { ...actor, action: 'two_factor.enabled' });
  return codes;
}

async function replaceRecoveryCodes(trx: Trx, owner: FactorOwner): Promise<string[]> {
  const { codes, hashes } = newRecoveryCodes();
  await deleteRecoveryCodes(trx, owner);
  await insertRecoveryCodes(trx, owner, hashes);
  return codes;
}

/** New recovery codes (the old ones stop working), for someone who has used or lost theirs. */
export async function renewRecoveryCodes(
  trx: Trx,
  owner: FactorOwner,
  actor: Actor,
): Promise<string[]> {
  const state = await twoFactorState(trx, owner);
  if (!state.enabled) throw new AppError('conflict', { message: 'Two-factor sign-in is off.' });
  const codes = await replaceRecoveryCodes(trx, owner);
  await recordAudit(trx, { ...actor, action: 'two_factor.recovery_codes_renewed' });
  return codes;
}

/**
 * Checks a second factor typed at sign-in: a code of the app (used once: its time step is kept)
 * or a recovery code (used up). Answers which it was, or undefined when it is neither.
 */
export async function checkSecondFactor(
  trx: Trx,
  box: SecretBox,
  owner: FactorOwner,
  typed: string,
): Promise<'totp' | 'recovery_code' | undefined> {
  const row = await findTwoFactor(trx, owner);
  if (!row?.totp_secret) return undefined;
  const step = verifyTotp(box.open(owner.id, row.totp_secret), typed, row.totp_last_step);
  if (step !== undefined) {
    await updateTwoFactor(trx, owner, { totp_last_step: step });
    return 'totp';
  }
  const hash = recoveryCodeHash(typed);
  if (hash && (await useRecoveryCode(trx, owner, hash, nowIso()))) return 'recovery_code';
  return undefined;
}

/**
 * Whether a code `checkSecondFactor` refused is the app's code of a time step already used (a
 * code typed twice, or seen over a shoulder): said as such rather than as a wrong code.
 */
export async function codeAlreadyUsed(
  db: Executor,
  box: SecretBox,
  owner: FactorOwner,
  typed: string,
): Promise<boolean> {
  const row = await findTwoFactor(db, owner);
  if (!row?.totp_secret) return false;
  return totpAlreadyUsed(box.open(owner.id, row.totp_secret), typed, row.totp_last_step);
}

/** Its owner turns the second factor off, and the act is recorded. */
export async function turnOffSecondFactor(
  trx: Trx,
  owner: FactorOwner,
  actor: Actor,
): Promise<void> {
  await removeSecondFactor(trx, owner);
  await recordAudit(trx, { ...actor, action: 'two_factor.disabled' });
}

/** Turns the second factor off (its owner, an admin, or the operator for a tenant's admin). */
export async function removeSecondFactor(trx: Trx, owner: FactorOwner): Promise<boolean> {
  const state = await twoFactorState(trx, owner);
  await updateTwoFactor(trx, owner, {
    totp_secret: null,
    totp_last_step: null,
    two_factor_since: null,
  });
  await deleteRecoveryCodes(trx, owner);
  return state.enabled;
}
