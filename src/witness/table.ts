import type { Kysely } from 'kysely';

/** The latest checkpoint the witness cosigned for one log: never moved back. */
export interface WitnessLogsTable {
  origin: string;
  /** SHA-256 of the origin, lowercase hex: the monitoring path's name for the log. */
  origin_hash: string;
  size: number;
  /** The root hash, base64, as the checkpoint states it. */
  root: string;
  /** The checkpoint with the log's signatures that verified and this witness's cosignature. */
  checkpoint: string;
  updated_at: string;
}

/**
 * A checkpoint signed by the log's key that is not consistent with what the witness cosigned
 * before (another tree at the same size, a proof that fails): evidence of a split view, kept.
 */
export interface WitnessConflictsTable {
  origin: string;
  received_at: string;
  /** The size and checkpoint the witness had cosigned when it came. */
  known_size: number;
  known_checkpoint: string;
  /** The request exactly as it came: the log-signed checkpoint and its proof. */
  request: string;
  reason: string;
}

/** The witness's own store: a small SQLite file, apart from any consent service's store. */
export interface WitnessDatabase {
  witness_logs: WitnessLogsTable;
  witness_conflicts: WitnessConflictsTable;
}

export type WitnessDb = Kysely<WitnessDatabase>;
