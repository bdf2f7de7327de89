export interface TlogLogsTable {
  log_id: string;
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
  log_id: string;
  idx: number;
  record_id: string;
  leaf: string;
  integrated_at: string;
}

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
