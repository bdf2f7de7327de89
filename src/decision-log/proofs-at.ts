import type { Executor } from '../platform/db.js';
import { assembleProof, inclusionPlan, type NodeId, type PublishedOn } from '../proof/index.js';
import type { LogProof } from '../record-kinds/index.js';
import type { Entry, LeafReader } from './leaves.js';
import { readNodes } from './nodes.js';
import { publicationsBefore } from './publication-entries.js';
import {
  logProofText,
  noOutsideProofs,
  type OutsideProofs,
  timestampFrom,
  withCosignatures,
} from './receipts.js';
import { findEntriesByRecords, findLog, latestCheckpoint, nodeKey } from './repository.js';
import { newestWitnessed } from './witness-repository.js';

/** Many records' proofs under one checkpoint, or the records whose leaves still wait. */
export type ProofsAtCheckpoint =
  | {
      ready: true;
      /** The signed checkpoint every proof leads to, with its size. */
      checkpoint: { note: string; size: number };
      verifierKey: string;
      proofs: Map<string, LogProof>;
      /** With witnesses: the checkpoint with a quorum of their cosignatures. */
      cosigned?: string;
      /** With time-stamping authorities: the first time-stamp at or after the checkpoint. */
      timestamp?: { token: string; checkpoint: string; consistency_proof: string[] };
    }
  | { ready: false; waiting: string[] };

/** Nodes asked of the store in one statement: three parameters each, well under both caps. */
const nodesPerRead = 300;

/**
 * The inclusion proofs of these records, all under the latest checkpoint (with witnesses, the
 * newest a quorum of them cosigned that holds every one of the records, when there is one), read
 * in a few statements however many records there are: their entries a slice at a time, then
 * every node any of their proofs needs, each once. The entries are read before the checkpoint,
 * so that an entry found is always inside it (an append commits its entries and its checkpoint
 * together). With `publishedOn`, a record made on a published text has its proof show that
 * text's publication before it (as its receipt does), proven under the same checkpoint. Each
 * proof shows its record's leaf as `leaves` rebuilds it from the record, as a receipt does.
 */
export async function logProofsAtLatest(
  db: Executor,
  tenantId: string,
  recordIds: readonly string[],
  leaves: LeafReader,
  outside: OutsideProofs = noOutsideProofs,
  publishedOn?: (leaf: string) => PublishedOn | undefined,
): Promise<ProofsAtCheckpoint> {
  const logged = await findEntriesByRecords(db, tenantId, recordIds);
  const found = new Set(logged.map((entry) => entry.record_id));
  const waiting = recordIds.filter((id) => !found.has(id));
  const { quorum, witnesses } = outside.witnesses;
  const names = witnesses.map((w) => w.name);
  const highest = Math.max(-1, ...logged.map((entry) => Number(entry.idx)));
  const witnessed =
    quorum > 0 && waiting.length === 0
      ? await newestWitnessed(db, tenantId, highest + 1, names, quorum)
      : undefined;
  const checkpoint = witnessed ?? (await latestCheckpoint(db, tenantId));
  if (waiting.length > 0 || (recordIds.length > 0 && !checkpoint)) {
    return { ready: false, waiting };
  }
  const entries = await leaves(logged);
  const log = await findLog(db, tenantId);
  const size = Number(checkpoint?.size ?? 0);
  const note = checkpoint?.note ?? '';
  const published = publishedOn
    ? await publicationsBefore(db, tenantId, entries, publishedOn, leaves)
    : new Map<string, Entry>();
  const plans = [...entries, ...new Set(published.values())].map((entry) => ({
    entry,
    index: Number(entry.idx),
    plan: inclusionPlan(Number(entry.idx), size),
  }));
  const nodes = await readAllNodes(
    db,
    tenantId,
    plans.flatMap(({ plan }) => plan.nodes),
  );
  const shown = new Map<string, LogProof>();
  for (const { entry, index, plan } of plans) {
    const proof = assembleProof(plan, (node) => nodes.get(nodeKey(node)));
    shown.set(
      entry.record_id,
      logProofText(entry.leaf, index, proof, { size, note }, log?.verifier_key ?? ''),
    );
  }
  const proofs = new Map<string, LogProof>();
  for (const entry of entries) {
    const proof = shown.get(entry.record_id) as LogProof;
    const publication = published.get(entry.record_id);
    const of = publication && (shown.get(publication.record_id) as LogProof);
    proofs.set(
      entry.record_id,
      of
        ? {
            ...proof,
            publication: {
              leaf: of.leaf,
              leaf_index: of.leaf_index,
              inclusion_proof: of.inclusion_proof,
            },
          }
        : proof,
    );
  }
  const timestamp = outside.timestamped ? await timestampFrom(db, tenantId, size) : undefined;
  return {
    ready: true,
    checkpoint: { note, size },
    verifierKey: log?.verifier_key ?? '',
    proofs,
    ...(witnessed ? { cosigned: await withCosignatures(db, tenantId, witnessed, names) } : {}),
    ...(timestamp ? { timestamp } : {}),
  };
}

/** Every distinct node of these, a statement per `nodesPerRead`. */
async function readAllNodes(
  db: Executor,
  tenantId: string,
  wanted: readonly NodeId[],
): Promise<Map<string, Uint8Array>> {
  const distinct = [...new Map(wanted.map((node) => [nodeKey(node), node])).values()];
  const all = new Map<string, Uint8Array>();
  for (let start = 0; start < distinct.length; start += nodesPerRead) {
    const read = await readNodes(db, tenantId, distinct.slice(start, start + nodesPerRead));
    for (const [key, hash] of read) all.set(key, hash);
  }
  return all;
}
