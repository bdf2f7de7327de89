import type { Db } from '../platform/db.js';
import { nowIso } from '../platform/time.js';
import { type NoteSigner, openNote, parseVerifierKey, signNote } from '../proof/index.js';
import {
  countEpochs,
  findCheckpointRoot,
  findLog,
  findState,
  insertEpoch,
  listLogStates,
  updateLogOrigin,
} from './repository.js';
import { readSignedSizes, rememberSigned, type SignedSize } from './signed-sizes.js';

/** A log the store holds behind a checkpoint already signed under its origin. */
export interface BehindLog {
  logId: string;
  origin: string;
  /** The store's size and root (hex). */
  store: SignedSize;
  /** The largest checkpoint signed under the origin. */
  signed: SignedSize;
}

export class LogBehindError extends Error {}

/**
 * The logs a store holds behind what was signed: smaller than the largest checkpoint signed
 * under their origin, or holding a checkpoint of that size with another root. Signing on would
 * fork such a log; it takes a new epoch first (`startEpoch`).
 */
export async function logsBehindSigned(db: Db, signedFile: string): Promise<BehindLog[]> {
  const signed = readSignedSizes(signedFile);
  if (Object.keys(signed).length === 0) return [];
  const behind: BehindLog[] = [];
  for (const log of await listLogStates(db)) {
    const mark = signed[log.origin];
    if (!mark) continue;
    const store = { size: Number(log.size ?? 0), root: log.root ?? '' };
    const forked =
      store.size < mark.size ||
      ((await findCheckpointRoot(db, log.log_id, mark.size)) ?? mark.root) !== mark.root;
    if (forked) behind.push({ logId: log.log_id, origin: log.origin, store, signed: mark });
  }
  return behind;
}

/**
 * Whether one log is behind what was signed under its origin (see `logsBehindSigned`), given
 * the record of signed checkpoints as `readSignedSizes` read it.
 */
export async function logBehindSigned(
  db: Db,
  logId: string,
  signed: Readonly<Record<string, SignedSize>>,
): Promise<boolean> {
  if (Object.keys(signed).length === 0) return false;
  const log = await findLog(db, logId);
  const mark = log ? signed[log.origin] : undefined;
  if (!log || !mark) return false;
  const state = await findState(db, logId);
  if (Number(state?.size ?? 0) < mark.size) return true;
  return ((await findCheckpointRoot(db, logId, mark.size)) ?? mark.root) !== mark.root;
}

/** Refuses a start on a store whose logs are behind what was signed, saying what to do. */
export async function refuseLogsBehind(db: Db, signedFile: string): Promise<void> {
  const behind = await logsBehindSigned(db, signedFile);
  if (behind.length === 0) return;
  const each = behind.map(
    (b) =>
      `log ${b.logId} holds ${b.store.size} entries, but a checkpoint of size ${b.signed.size} was signed under ${b.origin}`,
  );
  throw new LogBehindError(
    `The store is behind checkpoints this service already signed (${each.join('; ')}): it was restored from an earlier backup. Signing on would fork the log. Start a new log epoch for each such tenant with "consent-service log new-epoch --tenant ALIAS" (docs/proof.md, "Restores and log epochs"). Nothing was changed.`,
  );
}

/** What a new epoch is: the statement, and the two checkpoints it links. */
export interface Epoch {
  log_id: string;
  epoch: number;
  previous_origin: string;
  origin: string;
  previous_signed: { size: number; root: string };
  restored: { size: number; root: string };
  statement: string;
}

const statementHeader = 'consent-log/epoch/v1';

/**
 * Starts the log again under a new origin (`<first origin>/epoch/<n>`), from the leaves the
 * store holds: a signed statement names the largest checkpoint signed under the old origin and
 * the store's own, so every checkpoint and receipt given out stays valid in its epoch and an
 * auditor sees where the log went back. The new origin's checkpoints never meet the old ones'.
 */
export async function startEpoch(
  db: Db,
  logId: string,
  signer: NoteSigner,
  signedFile: string,
): Promise<Epoch> {
  const log = await findLog(db, logId);
  if (!log) throw new LogBehindError(`This tenant's log has no entries yet: it needs no epoch.`);
  const state = await findState(db, logId);
  const store = { size: Number(state?.size ?? 0), root: state?.root ?? '' };
  const signed = readSignedSizes(signedFile)[log.origin] ?? store;
  const epoch = (await countEpochs(db, logId)) + 2;
  const origin = `${log.origin.replace(/\/epoch\/\d+$/, '')}/epoch/${epoch}`;
  const text = [
    statementHeader,
    `log ${logId}`,
    `previous ${log.origin}`,
    `previous-signed ${signed.size} ${hexToBase64(signed.root)}`,
    `restored ${store.size} ${hexToBase64(store.root)}`,
    `origin ${origin}`,
    `time ${nowIso()}`,
    '',
  ].join('\n');
  const statement = signNote(text, [signer]);
  await db.transaction().execute(async (trx) => {
    await insertEpoch(trx, {
      log_id: logId,
      epoch,
      origin,
      previous_origin: log.origin,
      statement,
      created_at: nowIso(),
    });
    await updateLogOrigin(trx, logId, origin);
  });
  rememberSigned(signedFile, origin, store, true);
  return {
    log_id: logId,
    epoch,
    previous_origin: log.origin,
    origin,
    previous_signed: signed,
    restored: store,
    statement,
  };
}

/** An epoch statement checked against the log's verifier key: what it links, or why not. */
export function verifyEpochStatement(
  statement: string,
  verifierKey: string,
):
  | {
      valid: true;
      log_id: string;
      previous_origin: string;
      origin: string;
      previous_signed: { size: number; root: string };
      restored: { size: number; root: string };
    }
  | { valid: false; reason: string } {
  const verifier = parseVerifierKey(verifierKey.trim());
  if (!verifier.ok)
    return { valid: false, reason: `the key is not a verifier key: ${verifier.reason}` };
  const opened = openNote(statement, [verifier.value]);
  if (!opened.ok) return { valid: false, reason: opened.reason };
  if (opened.value.verified.length === 0) {
    return { valid: false, reason: 'the statement is not signed by this key' };
  }
  const lines = opened.value.text.split('\n');
  const field = (name: string) =>
    lines.find((line) => line.startsWith(`${name} `))?.slice(name.length + 1);
  const sizeRoot = (value: string | undefined) => {
    const [size, root] = (value ?? '').split(' ');
    return { size: Number(size), root: Buffer.from(root ?? '', 'base64').toString('hex') };
  };
  if (lines[0] !== statementHeader) return { valid: false, reason: 'not an epoch statement' };
  const previousSigned = sizeRoot(field('previous-signed'));
  const restored = sizeRoot(field('restored'));
  if (restored.size > previousSigned.size) {
    return { valid: false, reason: 'the restored log is larger than the one signed before it' };
  }
  return {
    valid: true,
    log_id: field('log') ?? '',
    previous_origin: field('previous') ?? '',
    origin: field('origin') ?? '',
    previous_signed: previousSigned,
    restored,
  };
}

function hexToBase64(hex: string): string {
  return Buffer.from(hex, 'hex').toString('base64');
}
