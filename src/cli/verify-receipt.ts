import { existsSync, readFileSync } from 'node:fs';
import {
  type LeafFormat,
  type PackVerdict,
  parseVerifierKey,
  type StatedRecord,
  verifyEvidencePackArchive,
  verifyReceipt,
} from '../proof/index.js';

/**
 * What `verify-receipt` prints: the verdict, and on success what the log proves, by the kind of
 * record its leaf is (a decision, a website visitor's cookie decision, a customer's channel
 * change or partner block).
 */
export type ReceiptVerdict =
  | {
      valid: true;
      kind: string;
      origin: string;
      tree_size: number;
      leaf_index: number;
      opened: boolean;
      record: StatedRecord;
    }
  | { valid: false; reason: string };

/**
 * Checks a receipt file offline (the receipt JSON as the API answers it, or its tlog-proof
 * text) against a verifier key given as text or as a file holding it, and the kinds' leaf
 * formats. Needs no store and no network.
 */
export function verifyReceiptFile(
  file: string,
  key: string,
  formats: readonly LeafFormat[],
  origin?: string,
): ReceiptVerdict {
  const keyText = (existsSync(key) ? readFileSync(key, 'utf8') : key).trim();
  const verifier = parseVerifierKey(keyText);
  if (!verifier.ok) throw new Error(`--key is not a verifier key: ${verifier.reason}`);
  const text = readFileSync(file, 'utf8');
  let input: Parameters<typeof verifyReceipt>[0] = text;
  if (text.trimStart().startsWith('{')) {
    try {
      input = JSON.parse(text) as typeof input;
    } catch {
      return { valid: false, reason: 'the file is neither receipt JSON nor tlog-proof text' };
    }
  }
  const result = verifyReceipt(
    input,
    [verifier.value],
    formats,
    origin === undefined ? {} : { origin },
  );
  if (!result.ok) return { valid: false, reason: result.reason };
  const { checkpoint } = result.value;
  return {
    valid: true,
    kind: result.value.kind,
    origin: checkpoint.origin,
    tree_size: checkpoint.size,
    leaf_index: result.value.leafIndex,
    opened: result.value.opened,
    record: result.value.record,
  };
}

/**
 * Checks a customer's evidence pack offline (the ZIP as the API or the back-office hands it
 * out) against a verifier key: the manifest's signature and every file's SHA-256, every receipt
 * under the pack's checkpoint, every text a decision was shown (docs/evidence-pack.md).
 */
export function verifyPackFile(
  file: string,
  key: string,
  formats: readonly LeafFormat[],
): PackVerdict {
  const keyText = (existsSync(key) ? readFileSync(key, 'utf8') : key).trim();
  const verifier = parseVerifierKey(keyText);
  if (!verifier.ok) throw new Error(`--key is not a verifier key: ${verifier.reason}`);
  return verifyEvidencePackArchive(readFileSync(file), file, [verifier.value], formats);
}
