import { setTimeout as sleep } from 'node:timers/promises';
import type { Db, Executor } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import {
  consistencyPlan,
  formatTlogProof,
  inclusionPlan,
  type PublishedOn,
} from '../proof/index.js';
import type {
  KindReceipt,
  KindRecords,
  LogProof,
  OpenedPersonal,
  Registry,
} from '../record-kinds/index.js';
import type { SubjectVault } from '../subjects/index.js';
import { type OpenedRecord, personalReader, type SealedRecord } from '../subjects/index.js';
import { type Entry, type LeafReader, leafReader } from './leaves.js';
import { publicationsBefore } from './publication-entries.js';
import { findEntryByRecord, findLog, latestCheckpoint } from './repository.js';
import { proofFrom } from './service.js';
import { firstTimestampFrom } from './timestamp-repository.js';
import { noWitnesses, type WitnessPolicy } from './witness-list.js';
import { cosignaturesOf, newestWitnessed } from './witness-repository.js';

/** What outside parties add to a receipt, as configured: witnesses, time-stamps. */
export interface OutsideProofs {
  readonly witnesses: WitnessPolicy;
  /** Whether authorities time-stamp checkpoints (`LOG_TSA_URLS`). */
  readonly timestamped: boolean;
  /** `LOG_TSA_CA_FILE`'s roots: an evidence pack carries the chain a token builds to them. */
  readonly tsaRoots: readonly string[];
}

export const noOutsideProofs: OutsideProofs = {
  witnesses: noWitnesses,
  timestamped: false,
  tsaRoots: [],
};

/** A kind with a receipt, and the declaration its leaf is rebuilt by. */
export interface ReceiptKind<Row> {
  receipt: KindReceipt<Row>;
  records?: KindRecords<{ id: string }> | undefined;
}

/** A record's receipt, or `ready: false` while its leaf waits for the integrator. */
export type ReceiptResult = { ready: true; receipt: unknown } | { ready: false };

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

/**
 * What every receipt carries, whatever record it proves: the record's leaf (as the record makes
 * it today, `leaves.ts`: a record changed since it was logged has a proof that fails), its inclusion proof
 * under the latest checkpoint, and the same as tlog-proof text. With witnesses, the proof is
 * under the newest checkpoint that a quorum of them cosigned, when one covers the leaf, and
 * `cosigned_checkpoint` is that checkpoint with their cosignatures. For a record made on a
 * published text, `publication` is the leaf of that text's publication before it, proven under
 * the same checkpoint. Undefined while the leaf waits for the integrator.
 */
async function logProofOf(
  db: Executor,
  tenantId: string,
  recordId: string,
  outside: OutsideProofs,
  leaves: LeafReader,
  kind: ReceiptKind<unknown>,
): Promise<LogProof | undefined> {
  const policy = outside.witnesses;
  const logged = await findEntryByRecord(db, tenantId, recordId);
  const latest = logged ? await latestCheckpoint(db, tenantId) : undefined;
  if (!logged || !latest) return undefined;
  const [entry] = (await leaves([{ ...logged, record_id: recordId }], kind.records)) as [Entry];
  const index = Number(entry.idx);
  const names = policy.witnesses.map((w) => w.name);
  const witnessed =
    policy.quorum > 0
      ? await newestWitnessed(db, tenantId, index + 1, names, policy.quorum)
      : undefined;
  const checkpoint = witnessed ?? latest;
  const log = await findLog(db, tenantId);
  const size = Number(checkpoint.size);
  const proof = await proofFrom(db, tenantId, inclusionPlan(index, size));
  const shown = logProofText(entry.leaf, index, proof, checkpoint, log?.verifier_key ?? '');
  const timestamp = outside.timestamped ? await timestampFrom(db, tenantId, size) : undefined;
  const { publishedOn } = kind.receipt;
  const publication = publishedOn
    ? await publicationBefore(db, tenantId, entry, publishedOn, leaves, size)
    : undefined;
  return {
    ...shown,
    ...(witnessed
      ? { cosigned_checkpoint: await withCosignatures(db, tenantId, witnessed, names) }
      : {}),
    ...(timestamp ? { timestamp } : {}),
    ...(publication ? { publication } : {}),
  };
}

/**
 * The leaf of the newest publication of a text before the record at `index`, with its inclusion
 * proof in a tree of `size`; none for a text published before publications were logged.
 */
async function publicationBefore(
  db: Executor,
  tenantId: string,
  entry: Entry,
  publishedOn: (leaf: string) => PublishedOn | undefined,
  leaves: LeafReader,
  size: number,
) {
  const before = (await publicationsBefore(db, tenantId, [entry], publishedOn, leaves)).get(
    entry.record_id,
  );
  if (!before) return undefined;
  const leafIndex = Number(before.idx);
  const proof = await proofFrom(db, tenantId, inclusionPlan(leafIndex, size));
  return { leaf: before.leaf, leaf_index: leafIndex, inclusion_proof: proof.map(base64) };
}

/** The newest checkpoint a quorum of the witnesses cosigned, with their lines; none without. */
export async function cosignedCheckpoint(
  db: Executor,
  tenantId: string,
  policy: WitnessPolicy,
): Promise<string | undefined> {
  if (policy.quorum === 0) return undefined;
  const names = policy.witnesses.map((w) => w.name);
  const witnessed = await newestWitnessed(db, tenantId, 0, names, policy.quorum);
  if (!witnessed) return undefined;
  return withCosignatures(db, tenantId, witnessed, names);
}

/** A checkpoint's note with the named witnesses' cosignature lines after the log's signature. */
export async function withCosignatures(
  db: Executor,
  tenantId: string,
  checkpoint: { size: number | string; note: string },
  witnesses: readonly string[],
): Promise<string> {
  const lines = await cosignaturesOf(db, tenantId, Number(checkpoint.size), witnesses);
  return checkpoint.note + lines.map((l) => l.line).join('');
}

/**
 * The first time-stamped checkpoint at or after a receipt's, with its RFC 3161 token and the
 * consistency proof from the receipt's checkpoint to it: the record existed by the token's time.
 */
export async function timestampFrom(db: Executor, tenantId: string, size: number) {
  const stamped = await firstTimestampFrom(db, tenantId, size);
  if (!stamped) return undefined;
  const to = Number(stamped.size);
  const proof = to === size ? [] : await proofFrom(db, tenantId, consistencyPlan(size, to));
  return { token: stamped.token, checkpoint: stamped.note, consistency_proof: proof.map(base64) };
}

/** A leaf's proof as every receipt states it: the hashes, and the same as tlog-proof text. */
export function logProofText(
  leaf: string,
  index: number,
  proof: readonly Uint8Array[],
  checkpoint: { size: number | string; note: string },
  verifierKey: string,
): LogProof {
  return {
    leaf,
    leaf_index: index,
    tree_size: Number(checkpoint.size),
    inclusion_proof: proof.map(base64),
    checkpoint: checkpoint.note,
    tlog_proof: formatTlogProof({
      index,
      inclusionProof: proof,
      checkpoint: checkpoint.note,
      extra: Buffer.from(leaf, 'utf8'),
    }),
    verifier_key: verifierKey,
  };
}

/**
 * A record's receipt, whatever its kind: the kind finds the record (`404 1004` with the kind's
 * message when the tenant has none by that id) and presents it with its proof and, unless its
 * subject was erased, its personal fields opened: a receipt still proves a record once its
 * subject is erased, without whose it was.
 */
export async function receiptOf<Row extends SealedRecord>(
  db: Db,
  vault: SubjectVault,
  registry: Registry,
  kind: ReceiptKind<Row>,
  tenantId: string,
  recordId: string,
  outside: OutsideProofs = noOutsideProofs,
): Promise<ReceiptResult> {
  const { receipt } = kind;
  const record = await receipt.find(db, tenantId, recordId.toLowerCase());
  if (!record) throw new AppError('notFound', { message: receipt.route.notFound });
  const leaves = leafReader(db, vault, registry, tenantId);
  const proof = await logProofOf(db, tenantId, record.id, outside, leaves, kind);
  if (!proof) return { ready: false };
  const [opened] = await personalReader(db, vault, tenantId)([record]);
  return { ready: true, receipt: receipt.present(record, proof, openedOnly(opened)) };
}

/** A record's opened personal fields, or undefined once its subject was erased. */
export function openedOnly(opened: OpenedRecord | undefined): OpenedPersonal {
  return opened?.state === 'open' ? opened : undefined;
}

/** How long a request that asks to wait for its receipt waits at most. */
const receiptWaitMs = 5_000;

/**
 * A receipt (or anything that waits for leaves) from `read`; with `wait`, holds up to 5 s for
 * the integrator to append its leaves (and, when `complete` says a ready one lacks something
 * still on its way, such as the witnesses' cosignatures, for that too, within the same 5 s).
 */
export async function awaitReady<T extends { ready: boolean }>(
  read: () => Promise<T>,
  kick: () => Promise<void>,
  wait: boolean,
  complete: (result: T) => boolean = () => true,
): Promise<T> {
  let result = await read();
  const deadline = Date.now() + receiptWaitMs;
  while (!(result.ready && complete(result)) && wait && Date.now() < deadline) {
    await Promise.race([kick(), sleep(250)]);
    result = await read();
  }
  return result;
}

/** A record's receipt; with `wait`, holds up to 5 s for the integrator to append its leaf. */
export function awaitReceipt<Row extends SealedRecord>(
  db: Db,
  vault: SubjectVault,
  registry: Registry,
  kick: () => Promise<void>,
  kind: ReceiptKind<Row>,
  tenantId: string,
  recordId: string,
  wait: boolean,
  outside: OutsideProofs = noOutsideProofs,
): Promise<ReceiptResult> {
  return awaitReady(
    () => receiptOf(db, vault, registry, kind, tenantId, recordId, outside),
    kick,
    wait,
    (result) =>
      outside.witnesses.quorum === 0 ||
      (result.ready &&
        typeof result.receipt === 'object' &&
        result.receipt !== null &&
        'cosigned_checkpoint' in result.receipt),
  );
}
