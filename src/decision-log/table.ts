export interface TlogLogsTable {
  log_id: string;
  /**
   * The log's number, which its entries name it by on a store that has it (`LogKey`,
   * src/platform/log-key.ts): given by the store when the log is made.
   */
  no?: number;
  tenant_id: string;
  /** The checkpoint origin line: names this log and no other. */
  origin: string;
  /** The key its checkpoints are signed with (C2SP verifier key text). */
  verifier_key: string;
  created_at: string;
}

export interface TlogStateTable {
  log_id: string;
  size: number;
  root: string;
  updated_at: string;
}

export interface TlogEntriesTable {
  /**
   * The log its entry is of: by its id, or by its number (`tlog_logs.no`), as the store keeps
   * them (`LogKey`, src/platform/log-key.ts). A store has one of the two columns.
   */
  log_id?: string;
  log_no?: number;
  idx: number;
  record_id: string;
  /**
   * The leaf's hash as 64 hex digits (PostgreSQL keeps its 32 bytes since migration 0062, read as
   * the same hex; SQLite its bytes since 0069, read as hex by `leafOf` in repository.ts); its text
   * in an entry written by 0.4.0 (`logged-leaf.ts`).
   */
  leaf: string;
  /** ISO 8601 in UTC; a `timestamptz` on PostgreSQL since 0062, read as the same text. */
  integrated_at: string;
}

/**
 * The log's leaves grow with every record: PostgreSQL's partitions by time split them by when
 * each was logged (src/platform/partitions.ts).
 */
export const logLeavesByTime = { table: 'tlog_entries', column: 'integrated_at' } as const;

export interface TlogNodesTable {
  log_id: string;
  level: number;
  idx: number;
  hash: string;
}

export interface TlogCheckpointsTable {
  log_id: string;
  size: number;
  root: string;
  /** The signed note, exactly as signed. */
  note: string;
  created_at: string;
}

/** An epoch a log was started again in, after a restore (src/decision-log/epochs.ts). */
export interface TlogEpochsTable {
  log_id: string;
  /** 2 for the first restart: the log's first origin is its epoch 1. */
  epoch: number;
  origin: string;
  previous_origin: string;
  /** The signed note linking the two (`consent-log/epoch/v1`). */
  statement: string;
  created_at: string;
}

/** The size a witness last cosigned of a log (docs/witnesses.md): what to send it next. */
export interface TlogWitnessStateTable {
  log_id: string;
  /** The witness's name in `LOG_WITNESSES_FILE`. */
  witness: string;
  size: number;
  updated_at: string;
}

/** A witness's cosignature of one checkpoint: the note signature line, as it answered it. */
export interface TlogCosignaturesTable {
  log_id: string;
  size: number;
  witness: string;
  line: string;
  /** The time the cosignature states (ISO 8601). */
  cosigned_at: string;
}

/** An RFC 3161 token on one checkpoint, from one time-stamping authority. */
export interface TlogTimestampsTable {
  log_id: string;
  size: number;
  /** The authority's URL in `LOG_TSA_URLS`. */
  tsa: string;
  /** base64 DER of the TimeStampToken. */
  token: string;
  /** The time the token states (ISO 8601). */
  gen_time: string;
  created_at: string;
}

/** One run of `audit` over a log, by the command line or the back-office. */
export interface TlogAuditsTable {
  log_id: string;
  id: string;
  ran_at: string;
  ran_by: string;
  /** 1 when nothing was found. */
  ok: number;
  entries: number;
  checkpoints: number;
  /** JSON array of the findings. */
  findings: string;
}

declare module '../platform/database.js' {
  /** The tables this folder owns, in the store's one schema (src/platform/database.ts). */
  interface Database {
    tlog_logs: TlogLogsTable;
    tlog_state: TlogStateTable;
    tlog_epochs: TlogEpochsTable;
    tlog_entries: TlogEntriesTable;
    tlog_nodes: TlogNodesTable;
    tlog_checkpoints: TlogCheckpointsTable;
    tlog_audits: TlogAuditsTable;
    tlog_witness_state: TlogWitnessStateTable;
    tlog_cosignatures: TlogCosignaturesTable;
    tlog_timestamps: TlogTimestampsTable;
  }
}

/**
 * Other folders' tables this folder's queries read (joined where one statement answers better
 * than a call to their service); `npm run lint` checks that no query reaches another
 * (scripts/table-owners.mjs).
 */
export type Reads = 'subjects' | 'tlog_pending';

/** Other folders' tables this folder writes: the leaves it has appended are taken off the journal's queue. */
export type Writes = 'tlog_pending';
