import type { Db } from '../platform/db.js';
import {
  assembleProof,
  consistencyPlan,
  foldRightBorder,
  type NodeId,
  nodeHash,
  openCheckpoint,
  parseVerifierKey,
  verifyConsistency,
} from '../proof/index.js';
import type { Registry } from '../record-kinds/index.js';
import type { SubjectVault } from '../subjects/index.js';
import { countErasedRecords, unloggedRecords } from './audit-records.js';
import { leafRebuilder } from './leaves.js';
import { isLoggedLeaf, loggedLeafHash } from './logged-leaf.js';
import { lowestStoredLevel, readNodes } from './nodes.js';
import {
  findCheckpoints,
  findEntriesFrom,
  findLog,
  findNodesAtLevel,
  findState,
  fromHex,
  nodeKey,
  toHex,
} from './repository.js';

/** One thing the audit found wrong, with where. */
export interface Finding {
  kind:
    | 'record-removed'
    | 'record-differs-from-leaf'
    | 'record-not-logged'
    | 'record-unreadable'
    | 'entry-missing'
    | 'node-missing'
    | 'node-changed'
    | 'checkpoint-root-mismatch'
    | 'checkpoint-signature-invalid'
    | 'checkpoints-inconsistent'
    | 'checkpoint-beyond-log'
    | 'state-mismatch';
  message: string;
  index?: number;
  record_id?: string;
  size?: number;
}

export interface AuditReport {
  log_id: string;
  origin: string | null;
  entries: number;
  checkpoints: number;
  /**
   * Records of erased customers and visitors (every kind's): their leaves were rebuilt with the
   * evidence commitment their erasure kept, whose values were destroyed with the subject's key
   * (docs/erasure.md).
   */
  erased_records: number;
  ok: boolean;
  findings: Finding[];
}

const pageSize = 2_000;

/**
 * Recomputes a tenant's whole log from its stored leaves, a page at a time: every leaf against
 * the record it stands for (a decision, a tombstone, a cookie decision), every stored node, every
 * stored checkpoint (its root and its signature) and the consistency of each checkpoint with the
 * next, and the log's state. Reports what was changed, removed or reordered instead of stopping
 * at the first.
 */
export async function auditLog(
  db: Db,
  vault: SubjectVault,
  registry: Registry,
  logId: string,
): Promise<AuditReport> {
  const findings: Finding[] = [];
  const rebuild = leafRebuilder(db, vault, registry, logId);
  // The service may append while the audit reads. Each append moves the leaves and the state in
  // one transaction, so a state that reads the same before the leaves and after them was theirs
  // throughout; one that moved in between is newer, not wrong. An append's own time is taken
  // before it commits, so it cannot tell whether it moved during the audit.
  const stateBefore = await findState(db, logId);
  const log = await findLog(db, logId);
  const verifier = log ? parseVerifierKey(log.verifier_key) : undefined;
  const checkpoints = await findCheckpoints(db, logId);
  const bySize = new Map(checkpoints.map((c) => [Number(c.size), c]));

  // The right border of the tree so far: complete subtrees, largest (leftmost) first.
  const border: { level: number; index: number; hash: Uint8Array }[] = [];
  let next = 0;
  for (;;) {
    const entries = await findEntriesFrom(db, logId, next, pageSize);
    if (entries.length === 0) break;
    const first = next;
    const last = Number(entries.at(-1)?.idx);
    const stored = await nodesFor(db, logId, first, last + 1);
    const expected = await rebuild(entries);
    for (const entry of entries) {
      const index = Number(entry.idx);
      if (index !== next) {
        findings.push({
          kind: 'entry-missing',
          index: next,
          message: `entries ${next} to ${index - 1} are missing`,
        });
        // The rest cannot be placed in the tree: later checks would only repeat this one.
        return report(log?.origin ?? null, logId, next, checkpoints.length, 0, findings);
      }
      const found = expected.get(entry.record_id);
      const rebuilt = found?.leaf;
      // A record no kind finds is named by the kind its logged leaf's header tells, when the log
      // holds the leaf's text (an entry written by 0.4.0); by its hash alone, it is a record.
      const record = found?.records.noun ?? registry.byLeaf(entry.leaf)?.records?.noun ?? 'record';
      if (rebuilt === null) {
        findings.push({
          kind: 'record-unreadable',
          index,
          record_id: entry.record_id,
          message: `the sealed personal fields of leaf ${index}'s ${record} cannot be opened with its subject's key`,
        });
      } else if (rebuilt === undefined) {
        findings.push({
          kind: 'record-removed',
          index,
          record_id: entry.record_id,
          message: `the ${record} of leaf ${index} is no longer in the store`,
        });
      } else if (!isLoggedLeaf(rebuilt, entry.leaf)) {
        findings.push({
          kind: 'record-differs-from-leaf',
          index,
          record_id: entry.record_id,
          message: `the ${record} record of leaf ${index} does not match the logged leaf`,
        });
      }
      let node = { level: 0, index, hash: loggedLeafHash(entry.leaf) };
      checkNode(stored, node, findings);
      while (border.length > 0 && border.at(-1)?.level === node.level) {
        const left = border.pop() as (typeof border)[number];
        node = {
          level: node.level + 1,
          index: left.index / 2,
          hash: nodeHash(left.hash, node.hash),
        };
        checkNode(stored, node, findings);
      }
      border.push(node);
      next = index + 1;
      const checkpoint = bySize.get(next);
      if (checkpoint) {
        const root = foldRightBorder(border.map((b) => b.hash));
        if (toHex(root) !== checkpoint.root) {
          findings.push({
            kind: 'checkpoint-root-mismatch',
            size: next,
            message: `the checkpoint of size ${next} does not match the leaves' root`,
          });
        }
        checkSignature(checkpoint, next, verifier, findings);
      }
    }
  }
  const size = next;

  const previous: Array<(typeof checkpoints)[number]> = [];
  for (const checkpoint of checkpoints) {
    const at = Number(checkpoint.size);
    if (at > size) {
      findings.push({
        kind: 'checkpoint-beyond-log',
        size: at,
        message: `a checkpoint of size ${at} was signed, but the log holds ${size} entries: it was cut back`,
      });
      checkSignature(checkpoint, at, verifier, findings);
      continue;
    }
    if (at === 0) continue;
    const before = previous.at(-1);
    previous.push(checkpoint);
    if (!before) continue;
    const from = Number(before.size);
    const plan = consistencyPlan(from, at);
    const nodes = await readNodes(db, logId, plan.nodes);
    let consistent = false;
    try {
      const proof = assembleProof(plan, (n) => nodes.get(nodeKey(n)));
      consistent = verifyConsistency(
        from,
        at,
        proof,
        fromHex(before.root),
        fromHex(checkpoint.root),
      );
    } catch {
      consistent = false;
    }
    if (!consistent) {
      findings.push({
        kind: 'checkpoints-inconsistent',
        size: at,
        message: `the checkpoint of size ${at} is not consistent with the one of size ${from}`,
      });
    }
  }

  const state = await findState(db, logId);
  const root = toHex(foldRightBorder(border.map((b) => b.hash)));
  const stateSize = Number(state?.size ?? 0);
  const movedSince = state !== undefined && Number(stateBefore?.size ?? 0) !== stateSize;
  if (
    state &&
    (stateSize < size ||
      (stateSize === size && state.root !== root) ||
      (stateSize > size && !movedSince))
  ) {
    findings.push({
      kind: 'state-mismatch',
      size: stateSize,
      message: `the log's state says size ${stateSize}; its leaves make size ${size}${stateSize === size ? ' with another root' : ''}`,
    });
  }
  for (const record of await unloggedRecords(db, registry, logId)) {
    findings.push({
      kind: 'record-not-logged',
      record_id: record,
      message: `record ${record} is neither in the log nor queued for it`,
    });
  }
  const erased = await countErasedRecords(db, registry, logId);
  return report(log?.origin ?? null, logId, size, checkpoints.length, erased, findings);
}

function report(
  origin: string | null,
  logId: string,
  entries: number,
  checkpoints: number,
  erased: number,
  findings: Finding[],
): AuditReport {
  return {
    log_id: logId,
    origin,
    entries,
    checkpoints,
    erased_records: erased,
    ok: findings.length === 0,
    findings,
  };
}

function checkNode(
  stored: Map<string, Uint8Array>,
  node: NodeId & { hash: Uint8Array },
  findings: Finding[],
): void {
  const kept = stored.get(nodeKey(node));
  // Nodes below `lowestStoredLevel` are recomputed from the leaves wherever they are needed, so
  // none has to be kept; one that is kept must still be right.
  if (kept === undefined) {
    if (node.level < lowestStoredLevel) return;
    findings.push({
      kind: 'node-missing',
      message: `stored node ${node.level}/${node.index} is missing`,
      index: node.index,
    });
  } else if (toHex(kept) !== toHex(node.hash)) {
    findings.push({
      kind: 'node-changed',
      message: `stored node ${node.level}/${node.index} does not match the leaves under it`,
      index: node.index,
    });
  }
}

function checkSignature(
  checkpoint: { note: string; root: string },
  size: number,
  verifier: ReturnType<typeof parseVerifierKey> | undefined,
  findings: Finding[],
): void {
  const opened = verifier?.ok ? openCheckpoint(checkpoint.note, [verifier.value]) : undefined;
  const valid =
    opened?.ok === true &&
    opened.value.checkpoint.size === size &&
    toHex(opened.value.checkpoint.rootHash) === checkpoint.root;
  if (!valid) {
    findings.push({
      kind: 'checkpoint-signature-invalid',
      size,
      message: `the checkpoint of size ${size} is not signed by the log's key, or says another size or root`,
    });
  }
}

/** Stored nodes that leaves [begin, end) complete, at every level. */
async function nodesFor(db: Db, logId: string, begin: number, end: number) {
  const found = new Map<string, Uint8Array>();
  for (let level = 0, width = 1; width <= end; level++, width *= 2) {
    const rows = await findNodesAtLevel(
      db,
      logId,
      level,
      Math.floor(begin / width),
      Math.ceil(end / width),
    );
    for (const row of rows)
      found.set(nodeKey({ level, index: Number(row.idx) }), fromHex(row.hash));
  }
  return found;
}
