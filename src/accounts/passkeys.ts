import type {
  AuthenticationResponseJSON,
  AuthenticatorTransport,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
  VerifiedRegistrationResponse,
} from '@simplewebauthn/server';
import { type Actor, recordAudit } from '../audit-trail/index.js';
import type { Executor, Trx } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import { newId } from '../platform/ids.js';
import { nowIso } from '../platform/time.js';
import {
  countPasskeysOf,
  deletePasskeyRow,
  deletePasskeysOf,
  findPasskeyByCredential,
  findPasskeysOf,
  insertPasskey,
  recordPasskeyUse,
  renamePasskeyRow,
} from './passkey-repository.js';
import { findOperatorRowById, findUserForSignIn, findUserRowById } from './repository.js';
import type { Account } from './sessions.js';
import type { SignInRequirement } from './table.js';

/**
 * @simplewebauthn/server, loaded with the first passkey ceremony: it and the certificate
 * libraries it brings took about half a second of every start of the service, of each command
 * and of each SQLite writer thread (which loads the kinds' registry, and so the features).
 */
const webauthn = () => import('@simplewebauthn/server');

/**
 * Passkeys (WebAuthn, through `@simplewebauthn/server`): a person registers several, names and
 * removes them, and signs in with one and nothing else. The browser proves the page's origin and
 * the authenticator proves the person's presence and verification (a PIN, a fingerprint); the
 * service keeps each credential's public key and counter, checks every signature against them, and
 * takes a challenge once.
 */

/** Who the passkeys are for: the site's host, and the one origin its pages are served from. */
export interface RelyingParty {
  id: string;
  origin: string;
  name: string;
}

/** The relying party of a service reached at `publicBaseUrl`. */
export function relyingPartyOf(publicBaseUrl: string): RelyingParty {
  const url = new URL(publicBaseUrl);
  return { id: url.hostname, origin: url.origin, name: 'Consent back-office' };
}

export interface Passkey {
  id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
  /** Synced between the person's devices (a passkey manager), or bound to one authenticator. */
  synced: boolean;
}

/** The longest name a passkey keeps. */
export const passkeyNameLength = 60;

/** The WebAuthn user handle of an account: no personal data, and the same on every passkey. */
const userHandleOf = (account: Account) => `${account.kind}:${account.id}`;

const refused = (message: string) => new AppError('invalidRequest', { message });

export async function listPasskeys(db: Executor, account: Account): Promise<Passkey[]> {
  return (await findPasskeysOf(db, account)).map((row) => ({
    id: row.id,
    name: row.name,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    synced: row.device_type === 'multiDevice',
  }));
}

export async function hasPasskey(db: Executor, account: Account): Promise<boolean> {
  return (await countPasskeysOf(db, account)) > 0;
}

/**
 * What the browser needs to make a new passkey: a resident (discoverable) key with user
 * verification, not one the person already has on that authenticator. The caller keeps its
 * `challenge` for `addPasskey`.
 */
export async function registrationOptions(
  db: Executor,
  party: RelyingParty,
  account: Account,
  email: string,
  name: string,
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  const existing = await findPasskeysOf(db, account);
  return (await webauthn()).generateRegistrationOptions({
    rpName: party.name,
    rpID: party.id,
    userName: email,
    userDisplayName: name || email,
    userID: new TextEncoder().encode(userHandleOf(account)),
    attestationType: 'none',
    excludeCredentials: existing.map((row) => ({
      id: row.credential_id,
      transports: transportsOf(row.transports),
    })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });
}

const transportsOf = (text: string) => text.split(' ').filter(Boolean) as AuthenticatorTransport[];

/**
 * Keeps the passkey the browser made for `challenge` (taken once by the caller), after checking
 * its origin, its relying party, the challenge and the person's verification. Anything else:
 * `400 1001`, and nothing is kept.
 */
export async function addPasskey(
  trx: Trx,
  party: RelyingParty,
  account: Account,
  input: { challenge: string; response: unknown; name: string },
  actor: Actor,
): Promise<Passkey> {
  let verified: VerifiedRegistrationResponse;
  try {
    verified = await (await webauthn()).verifyRegistrationResponse({
      response: input.response as RegistrationResponseJSON,
      expectedChallenge: input.challenge,
      expectedOrigin: party.origin,
      expectedRPID: party.id,
      requireUserVerification: true,
    });
  } catch (error) {
    throw refused(`The passkey was not made for this site: ${(error as Error).message}`);
  }
  if (!verified.verified) throw refused('The passkey could not be checked.');
  const info = verified.registrationInfo;
  if (await findPasskeyByCredential(trx, info.credential.id)) {
    throw new AppError('conflict', { message: 'This passkey is already registered.' });
  }
  const passkey = {
    id: newId(),
    name: nameOf(input.name),
    createdAt: nowIso(),
    lastUsedAt: null,
    synced: info.credentialDeviceType === 'multiDevice',
  };
  await insertPasskey(trx, {
    id: passkey.id,
    account_kind: account.kind,
    account_id: account.id,
    credential_id: info.credential.id,
    public_key: Buffer.from(info.credential.publicKey).toString('base64url'),
    sign_count: info.credential.counter,
    transports: (info.credential.transports ?? []).join(' '),
    device_type: info.credentialDeviceType,
    backed_up: info.credentialBackedUp ? 1 : 0,
    aaguid: info.aaguid,
    name: passkey.name,
    created_at: passkey.createdAt,
  });
  await recordAudit(trx, {
    ...actor,
    action: 'passkey.added',
    target: passkey.name,
    details: { passkey_id: passkey.id, synced: passkey.synced },
  });
  return passkey;
}

/** A name given, trimmed and cut; "Passkey" when none was. */
function nameOf(typed: string): string {
  const name = typed.trim().replace(/\s+/g, ' ').slice(0, passkeyNameLength);
  return name || 'Passkey';
}

export async function renamePasskey(
  trx: Trx,
  account: Account,
  id: string,
  name: string,
  actor: Actor,
): Promise<void> {
  const named = nameOf(name);
  if (!(await renamePasskeyRow(trx, account, id, named))) throw new AppError('notFound');
  await recordAudit(trx, {
    ...actor,
    action: 'passkey.renamed',
    target: named,
    details: { passkey_id: id },
  });
}

/**
 * Removes one of the account's passkeys; refused (`409`) for the last one of a person whose
 * sign-in would then no longer meet what their roles require.
 */
export async function removePasskey(
  trx: Trx,
  account: Account,
  id: string,
  keeps: { requirement: SignInRequirement | null; totp: boolean },
  actor: Actor,
): Promise<void> {
  const passkeys = await findPasskeysOf(trx, account);
  const passkey = passkeys.find((row) => row.id === id);
  if (!passkey) throw new AppError('notFound');
  const needsOne =
    keeps.requirement === 'passkey' || (keeps.requirement === 'second_factor' && !keeps.totp);
  if (passkeys.length === 1 && needsOne) {
    throw new AppError('conflict', {
      message:
        keeps.requirement === 'passkey'
          ? 'Your role signs in with a passkey: add another before you remove this one.'
          : 'Your team requires a second factor: add another passkey, or set up an authenticator app, before you remove this one.',
    });
  }
  await deletePasskeyRow(trx, account, id);
  await recordAudit(trx, {
    ...actor,
    action: 'passkey.removed',
    target: passkey.name,
    details: { passkey_id: id },
  });
}

/** Removes all of an account's passkeys (a second factor reset); answers how many. */
export function removePasskeysOf(trx: Trx, account: Account): Promise<number> {
  return deletePasskeysOf(trx, account);
}

/**
 * What the browser needs to sign in with any passkey of this site: no account named (the person
 * picks a passkey; it says whose it is). The caller keeps its `challenge`.
 */
export async function signInOptions(
  party: RelyingParty,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  return (await webauthn()).generateAuthenticationOptions({
    rpID: party.id,
    userVerification: 'required',
  });
}

/** Whom a passkey proved: an active account of an enabled tenant, or the operator. */
export interface PasskeyHolder {
  account: Account;
  email: string;
  name: string;
  tenantId: string | null;
}

/** Why a passkey did not sign anyone in: said on the page, and in the audit entry. */
export type PasskeyRefusal =
  | { reason: 'unknown_passkey' }
  | { reason: 'not_verified' | 'account_disabled'; holder: PasskeyHolder; detail: string };

/**
 * Checks a passkey's answer to `challenge` (taken once by the caller): a known credential, its
 * signature by the stored key over this site's origin and relying party, the person verified, the
 * user handle of its own account, and its counter moving on (a cloned authenticator's does not).
 * Answers whom it proved, having counted its use, or why not.
 */
export async function checkPasskeySignIn(
  trx: Trx,
  party: RelyingParty,
  input: { challenge: string; response: unknown },
): Promise<{ ok: true; holder: PasskeyHolder } | ({ ok: false } & PasskeyRefusal)> {
  const response = input.response as AuthenticationResponseJSON;
  const credentialId = typeof response?.id === 'string' ? response.id : '';
  const row = credentialId ? await findPasskeyByCredential(trx, credentialId) : undefined;
  if (!row) return { ok: false, reason: 'unknown_passkey' };
  const account: Account =
    row.account_kind === 'user'
      ? { kind: 'user', id: row.account_id }
      : { kind: 'operator', id: row.account_id };
  const holder = await holderOf(trx, account);
  if (!holder.active) {
    return { ok: false, reason: 'account_disabled', holder, detail: 'account or tenant disabled' };
  }
  const handle = response.response?.userHandle;
  if (
    handle !== undefined &&
    Buffer.from(handle, 'base64url').toString('utf8') !== userHandleOf(account)
  ) {
    return { ok: false, reason: 'not_verified', holder, detail: 'user handle of another account' };
  }
  let newCounter: number;
  try {
    const verified = await (await webauthn()).verifyAuthenticationResponse({
      response,
      expectedChallenge: input.challenge,
      expectedOrigin: party.origin,
      expectedRPID: party.id,
      requireUserVerification: true,
      credential: {
        id: row.credential_id,
        publicKey: Buffer.from(row.public_key, 'base64url'),
        counter: Number(row.sign_count),
        transports: transportsOf(row.transports),
      },
    });
    if (!verified.verified) {
      return { ok: false, reason: 'not_verified', holder, detail: 'signature' };
    }
    newCounter = verified.authenticationInfo.newCounter;
  } catch (error) {
    return { ok: false, reason: 'not_verified', holder, detail: (error as Error).message };
  }
  await recordPasskeyUse(trx, row.id, newCounter, nowIso());
  return { ok: true, holder };
}

async function holderOf(
  db: Executor,
  account: Account,
): Promise<PasskeyHolder & { active: boolean }> {
  if (account.kind === 'operator') {
    const operator = await findOperatorRowById(db, account.id);
    return {
      account,
      email: operator?.email ?? '',
      name: operator?.name ?? '',
      tenantId: null,
      active: operator?.status === 'active',
    };
  }
  const row = await findUserRowById(db, account.id);
  const user = row ? await findUserForSignIn(db, row.email) : undefined;
  return {
    account,
    email: user?.email ?? '',
    name: user?.name ?? '',
    tenantId: user?.tenant_id ?? null,
    active: user?.status === 'active' && user.tenant_disabled_at === null,
  };
}
