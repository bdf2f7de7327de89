import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

/** What a monitor has seen of one log: the checkpoint it last verified, and the log's key. */
export interface MonitorState {
  origin: string;
  verifier_key: string;
  size: number;
  /** base64 root hash. */
  root: string;
  /** The signed checkpoint note, as it was served. */
  checkpoint: string;
  seen_at: string;
}

export function readState(file: string): MonitorState | undefined {
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as MonitorState;
}

/** Written whole, then renamed: a monitor killed meanwhile leaves the previous state. */
export function writeState(file: string, state: MonitorState): void {
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(partial, file);
}

/** Keeps the evidence of a misbehaving log beside the state: both checkpoints, as served. */
export function keepEvidence(file: string, evidence: object): string {
  const path = `${file}.evidence-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
  writeFileSync(path, `${JSON.stringify(evidence, null, 2)}\n`);
  return path;
}
