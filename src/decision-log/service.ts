import type { Executor } from '../platform/db.js';
import { AppError } from '../platform/errors.js';
import {
  assembleProof,
  consistencyPlan,
  emptyRoot,
  type NodeId,
  type NoteSigner,
  signCheckpoint,
} from '../proof/index.js';
import { readNodes } from './nodes.js';
import {
  countPending,
  defaultOrigin,
  findLog,
  findState,
  fromHex,
  latestCheckpoint,
  nodeKey,
  pendingBacklog,
} from './repository.js';
import type { ConsistencyProof, LogCheckpoint, LogKey } from './schemas.js';
import type { TlogCheckpointsTable, TlogLogsTable } from './table.js';

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

/** The verifier key and origin: the log's own once its first leaf is appended. */
function keyOf(signer: NoteSigner, tenantId: string, log: TlogLogsTable | undefined): LogKey {
  return {
    key_name: signer.name,
    // The key the log was started with, even if this instance holds another.
    verifier_key: log?.verifier_key ?? signer.verifierKey,
    origin: log?.origin ?? defaultOrigin(signer, tenantId),
  };
}

/** The latest signed checkpoint; for a log with nothing appended, the empty tree's, signed now. */
function checkpointOf(
  signer: NoteSigner,
  origin: string,
  latest: TlogCheckpointsTable | undefined,
): LogCheckpoint {
  if (!latest) {
    const root = emptyRoot();
    return {
      origin,
      size: 0,
      root_hash: base64(root),
      checkpoint: signCheckpoint({ origin, size: 0, rootHash: root, extensions: [] }, [signer]),
    };
  }
  return {
    origin,
    size: Number(latest.size),
    root_hash: base64(fromHex(latest.root)),
    checkpoint: latest.note,
  };
}

export async function logKey(db: Executor, signer: NoteSigner, tenantId: string): Promise<LogKey> {
  return keyOf(signer, tenantId, await findLog(db, tenantId));
}

export async function currentCheckpoint(
  db: Executor,
  signer: NoteSigner,
  tenantId: string,
): Promise<LogCheckpoint> {
  return (await logOverview(db, signer, tenantId)).checkpoint;
}

/** The key, the latest checkpoint and when it was signed (null before the first append). */
export async function logOverview(db: Executor, signer: NoteSigner, tenantId: string) {
  const [log, latest] = await Promise.all([findLog(db, tenantId), latestCheckpoint(db, tenantId)]);
  const key = keyOf(signer, tenantId, log);
  return {
    key,
    checkpoint: checkpointOf(signer, key.origin, latest),
    signedAt: latest?.created_at ?? null,
  };
}

/** RFC 6962 PROOF(from, D[to]) for 1 <= from <= to <= the log's size. */
export async function consistency(
  db: Executor,
  tenantId: string,
  from: number,
  to: number,
): Promise<ConsistencyProof> {
  const size = Number((await findState(db, tenantId))?.size ?? 0);
  if (from < 1 || from > to || to > size) {
    throw new AppError('invalidRequest', {
      details: [
        { field: 'from', issue: `1 <= from <= to <= ${size} (the log's size) is required` },
      ],
    });
  }
  const plan = consistencyPlan(from, to);
  return { from, to, proof: (await proofFrom(db, tenantId, plan)).map(base64) };
}

/** The hashes of a proof's plan (inclusion or consistency), read from the stored nodes. */
export async function proofFrom(
  db: Executor,
  logId: string,
  plan: { nodes: readonly NodeId[]; elements: readonly (readonly NodeId[])[] },
): Promise<Uint8Array[]> {
  const nodes = await readNodes(db, logId, plan.nodes);
  return assembleProof(plan, (node) => nodes.get(nodeKey(node)));
}

/** Leaves waiting for the integrator to append them. */
export function queuedLeaves(db: Executor, tenantId: string): Promise<number> {
  return countPending(db, tenantId);
}

/**
 * What waits for the integrator across every tenant's log: the leaves queued, and the age in
 * seconds of the oldest (0 when none waits). One aggregate query, for the metrics scrape.
 */
export async function integratorBacklog(
  db: Executor,
  now: number = Date.now(),
): Promise<{ queued: number; oldestAgeSeconds: number }> {
  const { queued, oldestQueuedAt } = await pendingBacklog(db);
  const oldest = oldestQueuedAt === null ? now : Date.parse(oldestQueuedAt);
  return { queued, oldestAgeSeconds: Math.max(0, (now - oldest) / 1000) };
}
