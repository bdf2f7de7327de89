import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** The largest checkpoint signed under one origin: its size and root hash (hex). */
export interface SignedSize {
  size: number;
  root: string;
}

/**
 * The largest checkpoint this service has signed for each log (by origin), kept in a file
 * outside the store (`LOG_CHECKPOINTS_FILE`, beside the signing key by default). A store put
 * back from an earlier backup no longer holds those checkpoints, but whoever was given one
 * does: signing on from the restored size would give a second, different root at a size
 * already signed, under the same origin and key. The file is what tells (docs/proof.md,
 * "Restores and log epochs").
 */
export function readSignedSizes(file: string): Record<string, SignedSize> {
  if (!existsSync(file)) return {};
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, SignedSize>;
  } catch (error) {
    throw new Error(`${file} is not the log's record of signed checkpoints: ${String(error)}`);
  }
}

/**
 * Records a checkpoint just signed, keeping the larger one per origin; `replace` puts this one
 * in place whatever was there (a new epoch starts its origin at the restored size). Written to
 * a new file and renamed over the old, so a crash leaves one or the other whole. An append whose
 * record a crash lost is one append behind: the check then looks at the size before it.
 */
export function rememberSigned(
  file: string,
  origin: string,
  signed: SignedSize,
  replace = false,
): void {
  const all = readSignedSizes(file);
  const known = all[origin];
  if (!replace && known && known.size >= signed.size) return;
  all[origin] = signed;
  mkdirSync(dirname(file), { recursive: true });
  const next = `${file}.${process.pid}.next`;
  writeFileSync(next, `${JSON.stringify(all, null, 2)}\n`);
  renameSync(next, file);
}
